package dev.outboxrelay.core.route;

import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.format.MessageFormat;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.ProducerRecord;

final class TemplateEventRouter implements EventRouter {

    private final TopicTemplate template;
    private final Pattern allowed;
    private final Set<String> forbidden;
    private final MessageFormat format;

    TemplateEventRouter(TopicTemplate template, Pattern allowed, Set<String> forbidden, MessageFormat format) {
        this.template = template;
        this.allowed = allowed;
        this.forbidden = forbidden;
        this.format = format;
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
        return format.record(topic, event);
    }

    @Override
    public String toString() {
        return "topics " + template + ", format " + format;
    }
}
