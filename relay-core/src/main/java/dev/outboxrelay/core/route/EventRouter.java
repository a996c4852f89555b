package dev.outboxrelay.core.route;

import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Turns an outbox event into the Kafka record consumers see. The output contract, identical for both sources:
 * <ul>
 *   <li>topic from the template; key = {@code aggregate_id} as UTF-8; value = the payload JSON text as UTF-8,
 *       or {@code null} (a tombstone) when the payload is SQL {@code NULL};</li>
 *   <li>headers {@code id} (event id), {@code type} (event type), {@code aggregate_type}, then every entry of the
 *       row's {@code headers} object, values as UTF-8.</li>
 * </ul>
 */
public interface EventRouter {

    /** Header carrying the event id, the consumer's deduplication key. */
    String HEADER_ID = "id";
    /** Header carrying the event type. */
    String HEADER_TYPE = "type";
    /** Header carrying the aggregate type. */
    String HEADER_AGGREGATE_TYPE = "aggregate_type";

    /**
     * A router that names topics from a template with the placeholders {@code ${aggregateType}} and
     * {@code ${eventType}}, e.g. {@code outbox.event.${aggregateType}}.
     *
     * @throws IllegalArgumentException when the template has an unknown or unclosed placeholder, or its fixed
     *                                  text holds characters Kafka does not allow in topic names
     */
    static EventRouter topicTemplate(String template) {
        return new TemplateEventRouter(TopicTemplate.parse(template), null, Set.of());
    }

    /**
     * Like {@link #topicTemplate(String)}, but an event whose topic does not match {@code allowed} (null: any), or
     * is one of {@code forbidden} (the dead-letter topic), is malformed: the data must not choose any topic the
     * relay may write to.
     */
    static EventRouter topicTemplate(String template, Pattern allowed, Set<String> forbidden) {
        return new TemplateEventRouter(TopicTemplate.parse(template), allowed, Set.copyOf(forbidden));
    }

    /**
     * The record for {@code event}.
     *
     * @throws MalformedEventException when no valid record can be made (illegal topic name, reserved header, …)
     */
    ProducerRecord<byte[], byte[]> route(OutboxEvent event) throws MalformedEventException;
}
