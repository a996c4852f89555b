package dev.outboxrelay.testkit;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.apache.kafka.clients.consumer.ConsumerRecord;

/**
 * One record read back from Kafka by {@link TopicReader}, decoded as UTF-8 text for easy assertions.
 *
 * @param topic      topic name
 * @param partition  partition number
 * @param offset     offset in the partition
 * @param key        record key, {@code null} if the record has none
 * @param value      record value, {@code null} for a tombstone
 * @param headers    headers by name; when a name repeats, the last value wins. A header with a null value
 *                   maps to {@code null}.
 * @param rawHeaders every header in record order, with its bytes, duplicates included
 * @param timestamp  record timestamp in epoch milliseconds
 */
public record ReadRecord(String topic, int partition, long offset, String key, String value,
                         Map<String, String> headers, List<Header> rawHeaders, long timestamp) {

    /** Name of the header that carries the outbox event id. */
    public static final String ID_HEADER = "id";

    /** Copies the collections so that a record cannot change after it was read. */
    public ReadRecord {
        // LinkedHashMap, not Map.copyOf: header values may be null.
        headers = Collections.unmodifiableMap(new LinkedHashMap<>(headers));
        rawHeaders = List.copyOf(rawHeaders);
    }

    /**
     * One header as it was on the wire.
     *
     * @param name  header name
     * @param value header bytes, may be {@code null}
     */
    public record Header(String name, byte[] value) {

        /** The value decoded as UTF-8, or {@code null}. */
        public String valueAsString() {
            return value == null ? null : new String(value, StandardCharsets.UTF_8);
        }

        // Records compare arrays by identity; headers are compared by content.
        @Override
        public boolean equals(Object o) {
            return o instanceof Header h && name.equals(h.name) && Arrays.equals(value, h.value);
        }

        @Override
        public int hashCode() {
            return 31 * name.hashCode() + Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return name + "=" + valueAsString();
        }
    }

    /** The {@value #ID_HEADER} header, or {@code null} if absent. */
    public String id() {
        return headers.get(ID_HEADER);
    }

    /** Whether the value is null (a delete marker for compacted topics). */
    public boolean isTombstone() {
        return value == null;
    }

    /** Decodes a consumer record. */
    static ReadRecord from(ConsumerRecord<byte[], byte[]> r) {
        Map<String, String> byName = new LinkedHashMap<>();
        List<Header> raw = new ArrayList<>();
        for (org.apache.kafka.common.header.Header h : r.headers()) {
            raw.add(new Header(h.key(), h.value()));
            byName.put(h.key(), h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8));
        }
        return new ReadRecord(r.topic(), r.partition(), r.offset(), text(r.key()), text(r.value()), byName, raw,
                r.timestamp());
    }

    private static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }

    @Override
    public String toString() {
        return topic + "-" + partition + "@" + offset + " key=" + key + " id=" + id()
                + (value == null ? " tombstone" : " value=" + abbreviate(value));
    }

    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }
}
