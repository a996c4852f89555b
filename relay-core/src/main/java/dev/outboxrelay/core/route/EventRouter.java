package dev.outboxrelay.core.route;

import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.format.MessageFormat;
import dev.outboxrelay.schema.TableLayout;
import java.util.Set;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * Turns an outbox event into the Kafka record consumers see, identically for both sources: the topic from the
 * template (checked against the allowed topics), then key, value and headers from the {@link MessageFormat}
 * ({@link MessageFormat#relay()} unless told otherwise).
 */
public interface EventRouter {

    /** Header carrying the event id, the consumer's deduplication key. */
    String HEADER_ID = MessageFormat.HEADER_ID;
    /** Header carrying the event type. */
    String HEADER_TYPE = "type";
    /** Header carrying the aggregate type. */
    String HEADER_AGGREGATE_TYPE = "aggregate_type";

    /**
     * A router that names topics from a template with the placeholders {@code ${aggregateType}} (also
     * {@code ${routedByValue}}, as Debezium's router calls it), {@code ${eventType}} and {@code ${column.<name>}}
     * (another column, read with the event), e.g. {@code outbox.event.${aggregateType}}.
     *
     * @throws IllegalArgumentException when the template has an unknown or unclosed placeholder, or its fixed
     *                                  text holds characters Kafka does not allow in topic names
     */
    static EventRouter topicTemplate(String template) {
        return new TemplateEventRouter(TopicTemplate.parse(template), null, Set.of(), MessageFormat.relay());
    }

    /**
     * Like {@link #topicTemplate(String)}, but an event whose topic does not match {@code allowed} (null: any), or
     * is one of {@code forbidden} (the dead-letter topic), is malformed: the data must not choose any topic the
     * relay may write to.
     */
    static EventRouter topicTemplate(String template, Pattern allowed, Set<String> forbidden) {
        return topicTemplate(template, allowed, forbidden, MessageFormat.relay());
    }

    /** Like {@link #topicTemplate(String, Pattern, Set)}, writing records in {@code format}. */
    static EventRouter topicTemplate(String template, Pattern allowed, Set<String> forbidden, MessageFormat format) {
        return new TemplateEventRouter(TopicTemplate.parse(template), allowed, Set.copyOf(forbidden), format);
    }

    /**
     * Like {@link #topicTemplate(String, Pattern, Set, MessageFormat)} on a table laid out as {@code layout}, whose
     * columns {@code ${column.<name>}} placeholders may name (the layout must read the others: {@link #columnsOf}).
     */
    static EventRouter topicTemplate(String template, Pattern allowed, Set<String> forbidden, MessageFormat format,
                                     TableLayout layout) {
        return new TemplateEventRouter(TopicTemplate.parse(template).bind(layout), allowed, Set.copyOf(forbidden),
                format);
    }

    /**
     * The columns a template's {@code ${column.<name>}} placeholders name, in order.
     *
     * @throws IllegalArgumentException for a template that does not parse
     */
    static java.util.List<String> columnsOf(String template) {
        return TopicTemplate.parse(template).columns();
    }

    /**
     * The record for {@code event}.
     *
     * @throws MalformedEventException when no valid record can be made (illegal topic name, reserved header, …)
     */
    ProducerRecord<byte[], byte[]> route(OutboxEvent event) throws MalformedEventException;
}
