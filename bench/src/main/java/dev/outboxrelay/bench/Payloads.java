package dev.outboxrelay.bench;

import java.nio.charset.StandardCharsets;

/**
 * The benchmark's event payload: a realistic ~300-byte order JSON carrying a benchmark sequence number, which
 * identifies the event at the consumer whatever the contender put around it (the relay sends the payload as
 * the value, stock Debezium wraps it as an escaped string inside its change-event envelope).
 */
final class Payloads {

    /** The JSON field holding the sequence number; unique enough to find in any envelope. */
    static final String SEQ_FIELD = "bench_seq";
    private static final byte[] MARKER = SEQ_FIELD.getBytes(StandardCharsets.US_ASCII);

    private Payloads() {
    }

    /** Aggregate id of aggregate number {@code n}. */
    static String aggregateId(int n) {
        return "order-" + n;
    }

    /** The payload of event {@code seq} for {@code aggregateId}: about 300 bytes of JSON. */
    static String json(long seq, String aggregateId) {
        int qty = (int) (seq % 5) + 1;
        return "{\"" + SEQ_FIELD + "\": " + seq
                + ", \"orderId\": \"" + aggregateId + "\""
                + ", \"customer\": {\"id\": \"cust-" + (seq % 9973) + "\", \"tier\": \"gold\", \"country\": \"DE\"}"
                + ", \"items\": [{\"sku\": \"SKU-" + (seq % 1000) + "\", \"qty\": " + qty + ", \"price\": 19.99},"
                + " {\"sku\": \"SKU-" + (seq % 777) + "\", \"qty\": 1, \"price\": 5.49}]"
                + ", \"total\": " + (qty * 1999 + 549) / 100.0
                + ", \"currency\": \"EUR\", \"status\": \"PLACED\""
                + ", \"note\": \"leave at the back door, ring twice\"}";
    }

    /**
     * The sequence number in a record value: the digits after the first {@value #SEQ_FIELD}, skipping the
     * quotes, escapes and colon between. {@code -1} when the value has none.
     */
    static long seqOf(byte[] value) {
        if (value == null) {
            return -1;
        }
        int at = indexOf(value, MARKER);
        if (at < 0) {
            return -1;
        }
        int i = at + MARKER.length;
        while (i < value.length && (value[i] < '0' || value[i] > '9')) {
            if (i - at > MARKER.length + 8) {
                return -1;
            }
            i++;
        }
        long n = 0;
        boolean any = false;
        while (i < value.length && value[i] >= '0' && value[i] <= '9') {
            n = n * 10 + (value[i++] - '0');
            any = true;
        }
        return any ? n : -1;
    }

    private static int indexOf(byte[] hay, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= hay.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (hay[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }
}
