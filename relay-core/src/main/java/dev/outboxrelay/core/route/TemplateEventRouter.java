package dev.outboxrelay.core.route;

import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;

final class TemplateEventRouter implements EventRouter {

    private final TopicTemplate template;
    private final Pattern allowed;
    private final Set<String> forbidden;

    TemplateEventRouter(TopicTemplate template, Pattern allowed, Set<String> forbidden) {
        this.template = template;
        this.allowed = allowed;
        this.forbidden = forbidden;
    }

    @Override
    public ProducerRecord<byte[], byte[]> route(OutboxEvent event) throws MalformedEventException {
        String topic = template.resolve(event);
        if (topic == null) {
            // The resolved name is not quoted: it is built from application data and goes into a row's last_error.
            throw new MalformedEventException(event.id(), "topic template '" + template + "' gives an illegal Kafka"
                    + " topic name for this event (allowed: letters, digits, '.', '_', '-', at most "
                    + TopicTemplate.MAX_TOPIC_LENGTH + " characters)");
        }
        if (forbidden.contains(topic)) {
            throw new MalformedEventException(event.id(), "topic template '" + template + "' routes this event to the"
                    + " dead-letter topic, which only the relay writes to");
        }
        if (allowed != null && !allowed.matcher(topic).matches()) {
            throw new MalformedEventException(event.id(), "topic template '" + template + "' routes this event"
                    + " outside --topic-allow '" + allowed.pattern() + "'");
        }
        RecordHeaders headers = new RecordHeaders();
        headers.add(HEADER_ID, utf8(event.id().toString()));
        headers.add(HEADER_TYPE, utf8(event.eventType()));
        headers.add(HEADER_AGGREGATE_TYPE, utf8(event.aggregateType()));
        for (Map.Entry<String, String> h : event.headers().entrySet()) {
            String name = h.getKey();
            // Case-insensitively: consumers and tools that look up "ID" or "Type" must not get the row's value.
            if (name.equalsIgnoreCase(HEADER_ID) || name.equalsIgnoreCase(HEADER_TYPE)
                    || name.equalsIgnoreCase(HEADER_AGGREGATE_TYPE)) {
                throw new MalformedEventException(event.id(), "header '" + name + "' is reserved by the relay;"
                        + " rename it in the row's headers column");
            }
            headers.add(name, utf8(h.getValue()));
        }
        byte[] value = event.payload() == null ? null : utf8(event.payload());
        return new ProducerRecord<>(topic, null, utf8(event.aggregateId()), value, headers);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
