package dev.outboxrelay.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Scope;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OutboxTest {

    @Test
    void tableNamesAreFoldedQuotedAndCheckedLikePostgresql() {
        assertThat(TableName.parse("outbox").quoted()).isEqualTo("\"public\".\"outbox\"");
        assertThat(TableName.parse("App.Events").quoted()).isEqualTo("\"app\".\"events\"");
        assertThat(Outbox.forTable("app.events")).hasToString("Outbox[app.events]");
        for (String bad : new String[] {"", "a.b.c", "1outbox", "out box", "x;drop table y"}) {
            assertThatThrownBy(() -> Outbox.forTable(bad)).isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("'" + bad + "' is not a table name: expected [schema.]table, each a letter or"
                            + " underscore followed by letters, digits or underscores");
        }
    }

    @Test
    void eventsCheckTheirFieldsAndNeverShowValues() {
        assertThatThrownBy(() -> Event.builder("Order", " ", "OrderPaid")).hasMessage("aggregateId must not be blank");
        Event e = Event.builder("Order", "o-1", "OrderPaid").payload("{\"card\":\"4111\"}").header("k", "secret")
                .build();
        assertThat(e.toString()).doesNotContain("4111", "secret").contains("Order/o-1 OrderPaid");
    }

    @Test
    void headersAreAJsonObjectOfStringsWithTheTraceAddedUnlessSet() {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("note", "a \"quoted\"\\ line\nand\u0001");
        assertThat(JdbcOutbox.headersJson(headers, null))
                .isEqualTo("{\"note\":\"a \\\"quoted\\\"\\\\ line\\nand\\u0001\"}");
        assertThat(JdbcOutbox.headersJson(Map.of(), null)).isNull();
        assertThat(JdbcOutbox.headersJson(Map.of(), "00-t-s-01")).isEqualTo("{\"traceparent\":\"00-t-s-01\"}");
        assertThat(JdbcOutbox.headersJson(Map.of("Traceparent", "mine"), "00-t-s-01"))
                .isEqualTo("{\"Traceparent\":\"mine\"}");
    }

    @Test
    void theTraceparentIsOpenTelemetrysCurrentSpan() {
        assertThat(OpenTelemetryTrace.currentTraceparent()).as("no current span").isNull();
        SpanContext context = SpanContext.create("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7",
                TraceFlags.getSampled(), TraceState.getDefault());
        try (Scope ignored = Span.wrap(context).makeCurrent()) {
            assertThat(OpenTelemetryTrace.currentTraceparent())
                    .isEqualTo("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        }
    }
}
