package dev.outboxrelay.core.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/** Each format's record, read back the way its consumers read it (CloudEvents: the SDK's Kafka deserializer). */
class MessageFormatTest {

    private static final URI SOURCE = URI.create("https://orders.example.com");
    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    private static final Instant CREATED = Instant.parse("2026-12-05T10:15:30.123456Z");

    @Test
    void cloudEventsBinaryPutsTheAttributesInCeHeadersAndThePayloadAsTheValue() throws Exception {
        OutboxEvent event = event("{\"total\": 12.5}");
        ProducerRecord<byte[], byte[]> record = MessageFormat.cloudEventsBinary(SOURCE).record("orders", event);
        assertThat(record.topic()).isEqualTo("orders");
        assertThat(text(record.key())).isEqualTo("order-7");
        assertThat(text(record.value())).isEqualTo("{\"total\": 12.5}");
        assertThat(header(record, "ce_specversion")).isEqualTo("1.0");
        assertThat(header(record, "content-type")).isEqualTo("application/json");
        CloudEvent ce = read(record);
        assertAttributes(ce, event);
        assertThat(text(ce.getData().toBytes())).isEqualTo("{\"total\": 12.5}");
        assertThat(header(record, "traceparent")).as("the row's headers stay headers").isEqualTo(TRACEPARENT);
        assertThat(header(record, "id")).as("the relay's dedup header").isEqualTo(event.id().toString());
    }

    @Test
    void cloudEventsStructuredPutsTheEventAsJsonInTheValueWithThePayloadAsData() throws Exception {
        OutboxEvent event = event("{\"total\": 12.5}");
        ProducerRecord<byte[], byte[]> record = MessageFormat.cloudEventsStructured(SOURCE).record("orders", event);
        assertThat(header(record, "content-type")).startsWith("application/cloudevents+json");
        assertThat(record.headers().lastHeader("ce_id")).as("attributes are in the value").isNull();
        assertThat(text(record.value())).as("the payload embedded as written")
                .contains("\"specversion\":\"1.0\"", "\"data\":{\"total\": 12.5}");
        CloudEvent ce = read(record);
        assertAttributes(ce, event);
        assertThat(new ObjectMapper().readTree(ce.getData().toBytes()))
                .isEqualTo(new ObjectMapper().readTree("{\"total\": 12.5}"));
        assertThat(header(record, "traceparent")).isEqualTo(TRACEPARENT);
    }

    @Test
    void aNullPayloadIsAnEventWithoutDataNotATombstone() throws Exception {
        OutboxEvent event = event(null);
        ProducerRecord<byte[], byte[]> binary = MessageFormat.cloudEventsBinary(SOURCE).record("orders", event);
        assertThat(binary.value()).as("consumers pass no null value to a deserializer").isEmpty();
        assertThat(read(binary).getId()).isEqualTo(event.id().toString());
        assertThat(read(binary).getData()).isNull();
        assertThat(read(binary).getDataContentType()).isNull();
        assertThat(read(MessageFormat.cloudEventsStructured(SOURCE).record("orders", event)).getData()).isNull();
    }

    @Test
    void headerNamesTheCloudEventsBindingUsesAreReserved() {
        for (String name : new String[] {"ce_id", "CE_source", "Content-Type", "ID"}) {
            OutboxEvent event = new OutboxEvent(UUID.randomUUID(), "Order", "order-7", "OrderPlaced", "{}",
                    Map.of(name, "x"), CREATED);
            assertThatThrownBy(() -> MessageFormat.cloudEventsBinary(SOURCE).record("orders", event))
                    .isInstanceOf(MalformedEventException.class)
                    .hasMessage("header '" + name + "' is reserved by the relay; rename it in the row's headers"
                            + " column");
        }
    }

    @Test
    void theRelayFormatIsThePayloadWithTheRelaysHeaders() throws Exception {
        OutboxEvent event = event("{\"total\": 12.5}");
        ProducerRecord<byte[], byte[]> record = MessageFormat.relay().record("orders", event);
        assertThat(text(record.value())).isEqualTo("{\"total\": 12.5}");
        assertThat(header(record, "id")).isEqualTo(event.id().toString());
        assertThat(header(record, "type")).isEqualTo("OrderPlaced");
        assertThat(header(record, "aggregate_type")).isEqualTo("Order");
        assertThat(header(record, "traceparent")).isEqualTo(TRACEPARENT);
        assertThat(MessageFormat.of(MessageFormat.Kind.RELAY, SOURCE, null, null)).isSameAs(MessageFormat.relay());
    }

    /** Bytes no UTF-8 decoder would keep: a zero, invalid sequences, a high byte. */
    private static final byte[] BINARY = {0, (byte) 0xC3, (byte) 0x28, (byte) 0xFF, 42, (byte) 0x80};

    @Test
    void aBinaryPayloadIsPublishedUnchangedInEveryFormat() throws Exception {
        OutboxEvent event = new OutboxEvent(UUID.randomUUID(), "Order", "order-7", "OrderPlaced", null,
                Map.of(), CREATED, BINARY.clone());
        ProducerRecord<byte[], byte[]> relay = MessageFormat.of(MessageFormat.Kind.RELAY, SOURCE, null, null,
                "application/x-protobuf").record("orders", event);
        assertThat(relay.value()).isEqualTo(BINARY);
        assertThat(header(relay, "content-type")).isEqualTo("application/x-protobuf");
        assertThat(header(MessageFormat.relay().record("orders", event), "content-type")).as("none configured")
                .isNull();

        CloudEvent binary = read(MessageFormat.of(MessageFormat.Kind.CLOUDEVENTS_BINARY, SOURCE, null, null,
                "application/x-protobuf").record("orders", event));
        assertThat(binary.getData().toBytes()).isEqualTo(BINARY);
        assertThat(binary.getDataContentType()).isEqualTo("application/x-protobuf");
        CloudEvent structured = read(MessageFormat.cloudEventsStructured(SOURCE).record("orders", event));
        assertThat(structured.getData().toBytes()).isEqualTo(BINARY);
        assertThat(structured.getDataContentType()).isEqualTo("application/octet-stream");

        RouterSettings json = new RouterSettings(RouterSettings.Value.JSON_EXPANDED, RouterSettings.Key.STRING,
                java.util.List.of(), false);
        assertThat(text(MessageFormat.debeziumRouter(json, dev.outboxrelay.schema.TableLayout.RELAY)
                .record("orders", event).value())).as("JsonConverter writes Connect BYTES as base64")
                .isEqualTo("\"" + java.util.Base64.getEncoder().encodeToString(BINARY) + "\"");
    }

    @Test
    void theRowsContentTypeHeaderWinsOverTheConfiguredOne() throws Exception {
        OutboxEvent event = new OutboxEvent(UUID.randomUUID(), "Order", "order-7", "OrderPlaced", null,
                Map.of("content-type", "application/vnd.apache.avro"), CREATED, BINARY.clone());
        ProducerRecord<byte[], byte[]> relay = MessageFormat.of(MessageFormat.Kind.RELAY, SOURCE, null, null,
                "application/x-protobuf").record("orders", event);
        assertThat(header(relay, "content-type")).isEqualTo("application/vnd.apache.avro");
        assertThat(relay.headers().headers("content-type")).hasSize(1);
    }

    private static void assertAttributes(CloudEvent ce, OutboxEvent event) {
        assertThat(ce.getSpecVersion().toString()).isEqualTo("1.0");
        assertThat(ce.getId()).isEqualTo(event.id().toString());
        assertThat(ce.getSource()).isEqualTo(SOURCE);
        assertThat(ce.getType()).isEqualTo("OrderPlaced");
        assertThat(ce.getSubject()).isEqualTo("order-7");
        assertThat(ce.getTime()).isEqualTo(OffsetDateTime.ofInstant(CREATED, ZoneOffset.UTC));
        assertThat(ce.getDataContentType()).isEqualTo("application/json");
    }

    private static CloudEvent read(ProducerRecord<byte[], byte[]> record) {
        try (CloudEventDeserializer deserializer = new CloudEventDeserializer()) {
            return deserializer.deserialize(record.topic(), record.headers(), record.value());
        }
    }

    private static OutboxEvent event(String payload) {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("traceparent", TRACEPARENT);
        return new OutboxEvent(UUID.randomUUID(), "Order", "order-7", "OrderPlaced", payload, headers, CREATED);
    }

    private static String header(ProducerRecord<byte[], byte[]> record, String name) {
        return record.headers().lastHeader(name) == null ? null : text(record.headers().lastHeader(name).value());
    }

    private static String text(byte[] bytes) {
        return bytes == null ? null : new String(bytes, StandardCharsets.UTF_8);
    }
}
