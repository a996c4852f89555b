package dev.outboxrelay.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** The consumer must find the sequence number in every shape a contender sends the payload in. */
class PayloadsTest {

    @Test
    void payloadIsAboutThreeHundredBytesOfJson() {
        String json = Payloads.json(123_456, Payloads.aggregateId(42));
        assertThat(json.getBytes(StandardCharsets.UTF_8).length).isBetween(250, 350);
        assertThat(json).startsWith("{\"bench_seq\": 123456,").endsWith("}");
    }

    @Test
    void findsTheSequenceNumberInThePlainPayload() {
        assertThat(Payloads.seqOf(bytes(Payloads.json(7, "order-1")))).isEqualTo(7);
        // jsonb re-orders keys and normalises spacing; the relay sends that text
        assertThat(Payloads.seqOf(bytes("{\"note\": \"x\", \"bench_seq\": 987654321}"))).isEqualTo(987_654_321);
    }

    @Test
    void findsTheSequenceNumberInsideADebeziumEnvelope() {
        String envelope = "{\"schema\":{},\"payload\":{\"after\":{\"payload\":\"{\\\"bench_seq\\\": 31, \\\"x\\\": 1}\"}}}";
        assertThat(Payloads.seqOf(bytes(envelope))).isEqualTo(31);
    }

    @Test
    void valuesWithoutASequenceNumberAreNotOurs() {
        assertThat(Payloads.seqOf(null)).isEqualTo(-1);
        assertThat(Payloads.seqOf(bytes("{\"other\": 1}"))).isEqualTo(-1);
        assertThat(Payloads.seqOf(bytes("{\"bench_seq\": \"abcdefghijklmnop\"}"))).isEqualTo(-1);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
