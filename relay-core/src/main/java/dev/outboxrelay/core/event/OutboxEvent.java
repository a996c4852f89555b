package dev.outboxrelay.core.event;

import java.time.Instant;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * One outbox row as both sources read it: the application's contract columns, validated.
 *
 * @param id            event id; the relay publishes it as header {@code id} so consumers can deduplicate
 * @param aggregateType routing input ({@code ${aggregateType}} in the topic template), header {@code aggregate_type}
 * @param aggregateId   record key: events of one aggregate keep their order
 * @param eventType     header {@code type}
 * @param payload       the payload as text (jsonb, json or text column), or {@code null}
 * @param headers       extra headers written by the application (e.g. {@code traceparent}), in row order
 * @param createdAt     when the application wrote the row; used for end-to-end lag
 * @param binaryPayload the payload of a {@code bytea} column, published unchanged, or {@code null}; never set
 *                      together with {@code payload}
 * @param columns       the table's other columns that routing or the format name, by column name (values may be
 *                      null: Integer, Long, Short, Boolean, Double, Float, String; other types as their text)
 */
public record OutboxEvent(UUID id, String aggregateType, String aggregateId, String eventType, String payload,
                          Map<String, String> headers, Instant createdAt, byte[] binaryPayload,
                          Map<String, Object> columns) {

    /** An event with a text payload (or none). */
    public OutboxEvent(UUID id, String aggregateType, String aggregateId, String eventType, String payload,
                       Map<String, String> headers, Instant createdAt) {
        this(id, aggregateType, aggregateId, eventType, payload, headers, createdAt, null, null);
    }

    /** An event without other columns. */
    public OutboxEvent(UUID id, String aggregateType, String aggregateId, String eventType, String payload,
                       Map<String, String> headers, Instant createdAt, byte[] binaryPayload) {
        this(id, aggregateType, aggregateId, eventType, payload, headers, createdAt, binaryPayload, null);
    }

    public OutboxEvent {
        Objects.requireNonNull(id, "id");
        Objects.requireNonNull(aggregateType, "aggregateType");
        Objects.requireNonNull(aggregateId, "aggregateId");
        Objects.requireNonNull(eventType, "eventType");
        headers = headers == null ? Map.of() : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(headers));
        Objects.requireNonNull(createdAt, "createdAt");
        // LinkedHashMap, not Map.copyOf: a column's value may be null.
        columns = columns == null || columns.isEmpty() ? Map.of()
                : java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(columns));
        if (payload != null && binaryPayload != null) {
            throw new IllegalArgumentException("a payload is text or binary, not both");
        }
    }

    /** Whether the payload came from a {@code bytea} column. */
    public boolean isBinary() {
        return binaryPayload != null;
    }

    /** The payload as the record value carries it: the binary payload, the text as UTF-8, or {@code null}. */
    public byte[] payloadBytes() {
        return binaryPayload != null ? binaryPayload
                : payload == null ? null : payload.getBytes(java.nio.charset.StandardCharsets.UTF_8);
    }

    /** Characters of its text (payload, headers, type names): about its bytes in memory, Latin-1 text. */
    public long estimatedBytes() {
        long n = aggregateType.length() + eventType.length() + (payload == null ? 0 : payload.length())
                + (binaryPayload == null ? 0 : binaryPayload.length);
        for (Object v : columns.values()) {
            n += v instanceof String s ? s.length() + 16 : 16;
        }
        for (Map.Entry<String, String> h : headers.entrySet()) {
            n += h.getKey().length() + (h.getValue() == null ? 0 : h.getValue().length()) + 32;
        }
        return n;
    }

    /** Never logs the payload or header values: they may hold personal data. */
    @Override
    public String toString() {
        return "OutboxEvent[id=" + id + ", aggregateType=" + aggregateType + ", aggregateId=" + aggregateId
                + ", eventType=" + eventType + ", payloadBytes=" + (binaryPayload != null ? binaryPayload.length
                : payload == null ? "null" : payload.length())
                + ", headers=" + headers.keySet() + "]";
    }
}
