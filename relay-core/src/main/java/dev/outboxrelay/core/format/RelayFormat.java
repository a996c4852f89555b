package dev.outboxrelay.core.format;

import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

/** {@link MessageFormat#relay()}. */
final class RelayFormat implements MessageFormat {

    static final RelayFormat INSTANCE = new RelayFormat(null);
    static final String HEADER_TYPE = "type";
    static final String HEADER_AGGREGATE_TYPE = "aggregate_type";
    /** The header naming a binary payload's type, unless the row's headers name it. */
    static final String HEADER_CONTENT_TYPE = "content-type";

    private final String binaryContentType;

    RelayFormat(String binaryContentType) {
        this.binaryContentType = binaryContentType;
    }

    @Override
    public String toString() {
        return "relay";
    }

    @Override
    public ProducerRecord<byte[], byte[]> record(String topic, OutboxEvent event) throws MalformedEventException {
        RecordHeaders headers = new RecordHeaders();
        headers.add(HEADER_ID, utf8(event.id().toString()));
        headers.add(HEADER_TYPE, utf8(event.eventType()));
        headers.add(HEADER_AGGREGATE_TYPE, utf8(event.aggregateType()));
        for (Map.Entry<String, String> h : event.headers().entrySet()) {
            String name = h.getKey();
            // Case-insensitively: consumers and tools that look up "ID" or "Type" must not get the row's value.
            if (name.equalsIgnoreCase(HEADER_ID) || name.equalsIgnoreCase(HEADER_TYPE)
                    || name.equalsIgnoreCase(HEADER_AGGREGATE_TYPE)) {
                throw reserved(event, name);
            }
            headers.add(name, utf8(h.getValue()));
        }
        if (event.isBinary() && binaryContentType != null && headers.lastHeader(HEADER_CONTENT_TYPE) == null) {
            headers.add(HEADER_CONTENT_TYPE, utf8(binaryContentType));
        }
        return new ProducerRecord<>(topic, null, utf8(event.aggregateId()), event.payloadBytes(), headers);
    }

    static MalformedEventException reserved(OutboxEvent event, String name) {
        return new MalformedEventException(event.id(), "header '" + name + "' is reserved by the relay; rename it in"
                + " the row's headers column");
    }

    static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
