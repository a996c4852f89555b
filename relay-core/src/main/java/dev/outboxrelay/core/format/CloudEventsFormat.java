package dev.outboxrelay.core.format;

import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import io.cloudevents.CloudEvent;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonFormat;
import io.cloudevents.kafka.KafkaMessageFactory;
import java.net.URI;
import java.time.ZoneOffset;
import java.util.Locale;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Headers;

/**
 * {@link MessageFormat#cloudEventsBinary} and {@link MessageFormat#cloudEventsStructured}, written by the
 * CloudEvents Java SDK, so that what its Kafka deserializer reads is what the relay wrote.
 */
final class CloudEventsFormat implements MessageFormat {

    /** The payload column is jsonb: the data is always JSON. */
    static final String DATA_CONTENT_TYPE = "application/json";
    private static final JsonFormat JSON = new JsonFormat();

    /** A binary payload's datacontenttype when none is configured. */
    static final String BINARY_CONTENT_TYPE = "application/octet-stream";

    private final URI source;
    private final boolean structured;
    private final String binaryContentType;

    CloudEventsFormat(URI source, boolean structured, String binaryContentType) {
        this.source = source;
        this.structured = structured;
        this.binaryContentType = binaryContentType == null ? BINARY_CONTENT_TYPE : binaryContentType;
    }

    @Override
    public ProducerRecord<byte[], byte[]> record(String topic, OutboxEvent event) throws MalformedEventException {
        for (String name : event.headers().keySet()) {
            String lower = name.toLowerCase(Locale.ROOT);
            // ce_* and content-type carry the event's attributes; the id header is the relay's in every format.
            if (lower.startsWith("ce_") || lower.equals("content-type") || lower.equals(HEADER_ID)) {
                throw RelayFormat.reserved(event, name);
            }
        }
        CloudEventBuilder builder = CloudEventBuilder.v1()
                .withId(event.id().toString())
                .withSource(source)
                .withType(event.eventType())
                .withSubject(event.aggregateId())
                .withTime(event.createdAt().atOffset(ZoneOffset.UTC));
        if (event.isBinary()) {
            builder.withDataContentType(binaryContentType).withData(event.binaryPayload());
        } else if (event.payload() != null) {
            builder.withDataContentType(DATA_CONTENT_TYPE).withData(RelayFormat.utf8(event.payload()));
        }
        CloudEvent cloudEvent = builder.build();
        byte[] key = RelayFormat.utf8(event.aggregateId());
        ProducerRecord<byte[], byte[]> record = structured
                ? KafkaMessageFactory.createWriter(topic, null, null, key).writeStructured(cloudEvent, JSON)
                : KafkaMessageFactory.createWriter(topic, null, null, key).writeBinary(cloudEvent);
        if (record.value() == null) {
            // An event without data. Not a tombstone: Kafka consumers never hand a null value to a deserializer, so
            // a CloudEvents consumer would get null instead of the event.
            record = new ProducerRecord<>(topic, null, key, new byte[0], record.headers());
        }
        Headers headers = record.headers();
        headers.add(HEADER_ID, RelayFormat.utf8(event.id().toString()));
        for (Map.Entry<String, String> h : event.headers().entrySet()) {
            headers.add(h.getKey(), RelayFormat.utf8(h.getValue()));
        }
        return record;
    }

    @Override
    public String toString() {
        return (structured ? "cloudevents-structured" : "cloudevents-binary") + " (source " + source + ")";
    }
}
