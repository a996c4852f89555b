package dev.outboxrelay.core.route;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

class EventRouterTest {

    private static final UUID ID = UUID.fromString("6f1c1c2e-6a59-4c1b-9a50-0d3b2a1f0a01");

    private static OutboxEvent event(String aggregateType, String payload, Map<String, String> headers) {
        return new OutboxEvent(ID, aggregateType, "order-42", "OrderPlaced", payload, headers, Instant.EPOCH);
    }

    @Test
    void mapsAnEventToTheOutputContract() throws Exception {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("traceparent", "00-abc-def-01");
        ProducerRecord<byte[], byte[]> r = EventRouter.topicTemplate("outbox.event.${aggregateType}")
                .route(event("Order", "{\"total\":3}", headers));

        assertThat(r.topic()).isEqualTo("outbox.event.Order");
        assertThat(new String(r.key(), StandardCharsets.UTF_8)).isEqualTo("order-42");
        assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("{\"total\":3}");
        List<String> rendered = StreamSupport.stream(r.headers().spliterator(), false)
                .map(h -> h.key() + "=" + new String(h.value(), StandardCharsets.UTF_8)).toList();
        assertThat(rendered).containsExactly("id=" + ID, "type=OrderPlaced", "aggregate_type=Order",
                "traceparent=00-abc-def-01");
    }

    @Test
    void nullPayloadIsATombstone() throws Exception {
        ProducerRecord<byte[], byte[]> r = EventRouter.topicTemplate("t").route(event("Order", null, Map.of()));
        assertThat(r.value()).isNull();
        assertThat(r.key()).isNotNull();
    }

    @Test
    void eventTypePlaceholder() throws Exception {
        ProducerRecord<byte[], byte[]> r = EventRouter.topicTemplate("${aggregateType}-${eventType}")
                .route(event("Order", "{}", Map.of()));
        assertThat(r.topic()).isEqualTo("Order-OrderPlaced");
    }

    @Test
    void anIllegalResolvedTopicIsAMalformedEvent() {
        EventRouter router = EventRouter.topicTemplate("outbox.${aggregateType}");
        assertThatThrownBy(() -> router.route(event("has space", "{}", Map.of())))
                .isInstanceOf(MalformedEventException.class)
                .hasMessage("topic template 'outbox.${aggregateType}' gives an illegal Kafka topic name for this event"
                        + " (allowed: letters, digits, '.', '_', '-', at most 249 characters)");
    }

    @Test
    void reservedHeaderNamesAreRejectedNotOverwritten() {
        EventRouter router = EventRouter.topicTemplate("t");
        assertThatThrownBy(() -> router.route(event("Order", "{}", Map.of("id", "spoofed"))))
                .isInstanceOf(MalformedEventException.class)
                .hasMessage("header 'id' is reserved by the relay; rename it in the row's headers column");
    }

    @Test
    void reservedHeaderNamesAreMatchedWhateverTheirCase() {
        EventRouter router = EventRouter.topicTemplate("t");
        for (String name : List.of("ID", "Type", "Aggregate_Type")) {
            assertThatThrownBy(() -> router.route(event("Order", "{}", Map.of(name, "spoofed"))))
                    .as(name).isInstanceOf(MalformedEventException.class)
                    .hasMessage("header '" + name + "' is reserved by the relay; rename it in the row's headers column");
        }
    }

    @Test
    void theDataCannotRouteOutsideTheAllowListOrToTheDeadLetterTopic() throws Exception {
        EventRouter router = EventRouter.topicTemplate("${aggregateType}",
                java.util.regex.Pattern.compile("outbox\\.event\\..*|dlq"), java.util.Set.of("dlq"));
        assertThat(router.route(event("outbox.event.Order", "{}", Map.of())).topic()).isEqualTo("outbox.event.Order");
        assertThatThrownBy(() -> router.route(event("billing.internal", "{}", Map.of())))
                .isInstanceOf(MalformedEventException.class)
                .hasMessage("topic template '${aggregateType}' routes this event outside --topic-allow"
                        + " 'outbox\\.event\\..*|dlq'");
        assertThatThrownBy(() -> router.route(event("dlq", "{}", Map.of())))
                .isInstanceOf(MalformedEventException.class)
                .hasMessage("topic template '${aggregateType}' routes this event to the dead-letter topic, which only"
                        + " the relay writes to");
    }

    @Test
    void badTemplatesAreRefusedUpFront() {
        assertThatThrownBy(() -> EventRouter.topicTemplate("x.${aggregate}"))
                .hasMessage("topic template 'x.${aggregate}' has unknown placeholder ${aggregate}:"
                        + " use ${aggregateType}, ${eventType} or ${column.<name>}");
        assertThatThrownBy(() -> EventRouter.topicTemplate("x.${aggregateType"))
                .hasMessage("topic template 'x.${aggregateType' has an unclosed placeholder");
        assertThatThrownBy(() -> EventRouter.topicTemplate("bad topic/${eventType}"))
                .hasMessage("topic template 'bad topic/${eventType}' contains characters Kafka does not allow in"
                        + " topic names (allowed: letters, digits, '.', '_', '-')");
        assertThatThrownBy(() -> EventRouter.topicTemplate(" "))
                .hasMessage("topic template must not be empty");
    }

    @Test
    void headerValuesAreUtf8() throws Exception {
        ProducerRecord<byte[], byte[]> r = EventRouter.topicTemplate("t")
                .route(event("Order", "{}", Map.of("note", "grüße")));
        Header h = r.headers().lastHeader("note");
        assertThat(new String(h.value(), StandardCharsets.UTF_8)).isEqualTo("grüße");
    }

    @Test
    void placeholdersReadOtherColumnsAndDebeziumsRoutedByValue() throws Exception {
        dev.outboxrelay.schema.TableLayout layout = dev.outboxrelay.schema.TableLayout.DEBEZIUM
                .withExtras(java.util.List.of("region"));
        EventRouter router = EventRouter.topicTemplate("${column.region}.${routedByValue}.${column.type}", null,
                java.util.Set.of(), dev.outboxrelay.core.format.MessageFormat.relay(), layout);
        assertThat(EventRouter.columnsOf("${column.region}.${routedByValue}.${column.type}"))
                .containsExactly("region", "type");
        java.util.Map<String, Object> columns = new java.util.HashMap<>();
        columns.put("region", "eu");
        OutboxEvent event = new OutboxEvent(java.util.UUID.randomUUID(), "Order", "o-1", "Placed", "{}",
                java.util.Map.of(), java.time.Instant.now(), null, columns);
        assertThat(router.route(event).topic()).as("type is the Debezium table's event type column")
                .isEqualTo("eu.Order.Placed");
        columns.put("region", null);
        OutboxEvent without = new OutboxEvent(event.id(), "Order", "o-1", "Placed", "{}", java.util.Map.of(),
                java.time.Instant.now(), null, columns);
        assertThatThrownBy(() -> router.route(without)).isInstanceOf(
                dev.outboxrelay.core.event.MalformedEventException.class).hasMessageContaining("illegal Kafka topic");
    }
}
