package dev.outboxrelay.core.event;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class OutboxEventsTest {

    private static final UUID ID = UUID.randomUUID();

    @Test
    void flatObjectOfStringsBecomesHeadersInOrder() throws Exception {
        assertThat(OutboxEvents.parseHeaders(ID, "{\"b\":\"2\",\"a\":\"1\",\"n\":3,\"skip\":null}"))
                .containsExactly(java.util.Map.entry("b", "2"), java.util.Map.entry("a", "1"),
                        java.util.Map.entry("n", "3"));
        assertThat(OutboxEvents.parseHeaders(ID, null)).isEmpty();
    }

    @Test
    void malformedHeadersGiveAReasonWithoutData() {
        assertThatThrownBy(() -> OutboxEvents.parseHeaders(ID, "[\"x\"]"))
                .isInstanceOf(MalformedEventException.class)
                .hasMessage("headers column must be a JSON object of strings, was a JSON array");
        assertThatThrownBy(() -> OutboxEvents.parseHeaders(ID, "{\"a\":{\"nested\":1}}"))
                .hasMessage("header 'a' must be a string, was a JSON object");
    }

    @Test
    void toStringNeverShowsThePayload() {
        OutboxEvent e = new OutboxEvent(ID, "Order", "1", "Placed", "{\"card\":\"4111\"}",
                java.util.Map.of("k", "secret-value"), Instant.EPOCH);
        assertThat(e.toString()).doesNotContain("4111").doesNotContain("secret-value").contains("payloadBytes=15");
    }
}
