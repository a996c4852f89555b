package dev.outboxrelay.client;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;

/**
 * One event to append: what the relay publishes. Build it with {@link #builder}; it is immutable.
 *
 * <pre>{@code
 * Event e = Event.builder("Order", order.id(), "OrderPaid")
 *         .payload("{\"orderId\":\"o-42\",\"amount\":\"19.90\"}")
 *         .build();
 * }</pre>
 */
public final class Event {

    private final UUID id;
    private final String aggregateType;
    private final String aggregateId;
    private final String eventType;
    private final String payload;
    private final Map<String, String> headers;

    private Event(Builder b) {
        this.id = b.id;
        this.aggregateType = b.aggregateType;
        this.aggregateId = b.aggregateId;
        this.eventType = b.eventType;
        this.payload = b.payload;
        this.headers = Collections.unmodifiableMap(new LinkedHashMap<>(b.headers));
    }

    /**
     * A builder for an event of {@code aggregateType} (routes it: {@code ${aggregateType}} in the topic template),
     * about the aggregate {@code aggregateId} (the Kafka key: one aggregate's events keep their order), of type
     * {@code eventType}.
     */
    public static Builder builder(String aggregateType, String aggregateId, String eventType) {
        return new Builder(aggregateType, aggregateId, eventType);
    }

    /** The id set as idempotency key, or null: the writer then makes a UUIDv7. */
    public UUID id() {
        return id;
    }

    public String aggregateType() {
        return aggregateType;
    }

    public String aggregateId() {
        return aggregateId;
    }

    public String eventType() {
        return eventType;
    }

    /** JSON text, or null for an event without payload (a tombstone on the topic). */
    public String payload() {
        return payload;
    }

    /** Headers the relay puts on the record, in order. */
    public Map<String, String> headers() {
        return headers;
    }

    /** Never shows payload or header values: they may hold personal data. */
    @Override
    public String toString() {
        return "Event[" + aggregateType + "/" + aggregateId + " " + eventType + (id == null ? "" : " id=" + id)
                + ", headers=" + headers.keySet() + "]";
    }

    /** Builds an {@link Event}; every setter checks its argument at once. */
    public static final class Builder {
        private final String aggregateType;
        private final String aggregateId;
        private final String eventType;
        private UUID id;
        private String payload;
        private final Map<String, String> headers = new LinkedHashMap<>();

        private Builder(String aggregateType, String aggregateId, String eventType) {
            this.aggregateType = nonBlank("aggregateType", aggregateType);
            this.aggregateId = nonBlank("aggregateId", aggregateId);
            this.eventType = nonBlank("eventType", eventType);
        }

        /**
         * The event's id, as an idempotency key: appending an event whose id is already in the table writes
         * nothing, so a retried business operation that derives the same id does not publish twice (while the
         * first row is still in the table: with {@code --on-publish mark}, for the relay's {@code --retention}).
         */
        public Builder id(UUID value) {
            this.id = Objects.requireNonNull(value, "id");
            return this;
        }

        /** The payload as JSON text (the application serializes it); PostgreSQL checks it is JSON. */
        public Builder payload(String json) {
            this.payload = json;
            return this;
        }

        /**
         * A header for the record, e.g. a correlation id. {@code traceparent} set here wins over the one taken
         * from OpenTelemetry's current context.
         */
        public Builder header(String name, String value) {
            headers.put(nonBlank("header name", name), Objects.requireNonNull(value, "value of header " + name));
            return this;
        }

        public Event build() {
            return new Event(this);
        }

        private static String nonBlank(String what, String value) {
            if (value == null || value.isBlank()) {
                throw new IllegalArgumentException(what + " must not be blank");
            }
            return value;
        }
    }
}
