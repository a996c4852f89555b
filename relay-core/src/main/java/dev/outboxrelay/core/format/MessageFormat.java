package dev.outboxrelay.core.format;

import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.schema.TableLayout;
import java.net.URI;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * How an outbox event becomes the Kafka record consumers see, once its topic is chosen: a function from row to
 * record, the same in both modes. Every format keys records by {@code aggregate_id} (per-key order) and carries the
 * header {@value #HEADER_ID} (the event id as text): what the inbox module and {@code verify} deduplicate and audit
 * on, whatever the format.
 */
public interface MessageFormat {

    /** Header carrying the event id, the consumer's deduplication key, in every format. */
    String HEADER_ID = "id";

    /** The formats by name, as {@code --message-format} takes them. */
    enum Kind {
        /** {@link #relay()}. */
        RELAY,
        /** {@link #cloudEventsBinary}. */
        CLOUDEVENTS_BINARY,
        /** {@link #cloudEventsStructured}. */
        CLOUDEVENTS_STRUCTURED,
        /** {@link #debeziumRouter}. */
        DEBEZIUM
    }

    /**
     * The format of {@code kind}; {@code source} is the CloudEvents {@code source} attribute, {@code router} the
     * settings of the Debezium format, whose additional fields name columns of {@code layout}.
     *
     * @throws IllegalArgumentException when the router settings name a column the format cannot place
     */
    static MessageFormat of(Kind kind, URI source, RouterSettings router, TableLayout layout) {
        return of(kind, source, router, layout, null);
    }

    /**
     * {@link #of(Kind, URI, RouterSettings, TableLayout)} with {@code binaryContentType}, the type of {@code bytea}
     * payloads (a {@code content-type} header in the relay format, the CloudEvents {@code datacontenttype}), or
     * {@code null} for none ({@code application/octet-stream} in CloudEvents).
     */
    static MessageFormat of(Kind kind, URI source, RouterSettings router, TableLayout layout,
                            String binaryContentType) {
        return switch (kind) {
            case RELAY -> binaryContentType == null ? relay() : new RelayFormat(binaryContentType);
            case CLOUDEVENTS_BINARY -> new CloudEventsFormat(source, false, binaryContentType);
            case CLOUDEVENTS_STRUCTURED -> new CloudEventsFormat(source, true, binaryContentType);
            case DEBEZIUM -> debeziumRouter(router, layout);
        };
    }

    /**
     * The relay's own format: value = the payload JSON text as UTF-8 (a {@code bytea} payload's bytes unchanged),
     * or {@code null} (a tombstone) when the payload is SQL {@code NULL}; headers {@code id}, {@code type} (event
     * type), {@code aggregate_type}, then every entry of the row's {@code headers} object.
     */
    static MessageFormat relay() {
        return RelayFormat.INSTANCE;
    }

    /**
     * CloudEvents 1.0, Kafka protocol binding, binary mode: attributes as {@code ce_*} headers ({@code id},
     * {@code source}, {@code type} = event type, {@code subject} = aggregate id, {@code time} = created_at,
     * {@code datacontenttype} as {@code content-type}), the payload as the value (empty without payload: an event
     * without data, never a tombstone); the row's headers (e.g. {@code traceparent}) stay headers.
     */
    static MessageFormat cloudEventsBinary(URI source) {
        return new CloudEventsFormat(source, false, null);
    }

    /**
     * CloudEvents 1.0, Kafka protocol binding, structured mode: the value is the event as JSON
     * ({@code application/cloudevents+json}) with the payload as {@code data}; the row's headers stay headers.
     */
    static MessageFormat cloudEventsStructured(URI source) {
        return new CloudEventsFormat(source, true, null);
    }

    /**
     * The records Debezium's Outbox Event Router writes through a Kafka Connect worker for the same row, byte for
     * byte, under {@code settings} (which name the converters): key = aggregate id, header {@code id}, the payload
     * (expanded JSON, a JSON string or the text) as the value, additional columns as headers or envelope fields;
     * then the row's own headers, which the router does not read.
     *
     * @param layout the table's columns, which additional fields name (e.g. {@code type} on a Debezium table)
     * @throws IllegalArgumentException when {@code settings} name a column that cannot be an additional field
     */
    static MessageFormat debeziumRouter(RouterSettings settings, TableLayout layout) {
        return new DebeziumRouterFormat(settings, layout);
    }

    /**
     * The record for {@code event} on {@code topic}.
     *
     * @throws MalformedEventException when the row cannot be such a record (e.g. a header name the format reserves)
     */
    ProducerRecord<byte[], byte[]> record(String topic, OutboxEvent event) throws MalformedEventException;
}
