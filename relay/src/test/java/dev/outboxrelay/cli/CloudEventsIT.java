package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import io.cloudevents.CloudEvent;
import io.cloudevents.kafka.CloudEventDeserializer;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * CloudEvents 1.0 on the wire, read by the CloudEvents SDK's own Kafka deserializer: every event of the table
 * arrives as a CloudEvent with its id, the configured source, its type, the aggregate id as subject, created_at as
 * time and the payload as JSON data; a row's traceparent stays a header; a null payload is an event without data.
 * Each format in one mode here; the format is the same function in both (MessageFormatTest covers the rest).
 */
class CloudEventsIT {

    private static final URI SOURCE = URI.create("https://orders.example.com/outbox");
    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    private PublishingRelay relay;

    @AfterEach
    void tearDown() throws Exception {
        if (relay != null) {
            relay.close();
        }
    }

    @ParameterizedTest(name = "{0} mode, {1}")
    @CsvSource({"poll, cloudevents-binary", "cdc, cloudevents-structured"})
    void everyEventIsACloudEventTheSdkReads(String mode, String format) throws Exception {
        TestKafka kafka = TestKafka.shared();
        String topic = "cloudevents-" + mode + "." + UUID.randomUUID();
        kafka.createTopic(topic, 3);
        relay = PublishingRelay.of("cloudevents-" + mode, mode).kafka(kafka).args("--topic-template", topic,
                "--message-format", format, "--cloudevents-source", SOURCE.toString()).start();
        TestDatabase database = relay.database;

        List<OutboxWriter.Row> rows = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            rows.add(new OutboxWriter.Row(UUID.randomUUID(), "Order", "order-" + (i % 4), "OrderPlaced",
                    i == 17 ? null : "{\"n\": " + i + ", \"note\": \"caf\u00e9\"}",
                    i % 3 == 0 ? "{\"traceparent\": \"" + TRACEPARENT + "\"}" : null));
        }
        new OutboxWriter(database, "public.outbox").insert(rows);
        Map<String, OffsetDateTime> createdAt = createdAt(database);

        List<ConsumerRecord<String, CloudEvent>> records = consume(kafka, topic, rows.size());
        assertThat(records).hasSize(rows.size());
        Map<String, ConsumerRecord<String, CloudEvent>> byId = new HashMap<>();
        Map<String, List<String>> orderPerKey = new HashMap<>();
        for (ConsumerRecord<String, CloudEvent> r : records) {
            byId.put(r.value().getId(), r);
            orderPerKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value().getId());
        }
        ObjectMapper json = new ObjectMapper();
        for (int i = 0; i < rows.size(); i++) {
            OutboxWriter.Row row = rows.get(i);
            String id = row.id().toString();
            ConsumerRecord<String, CloudEvent> r = byId.get(id);
            assertThat(r).as("event %s delivered", id).isNotNull();
            CloudEvent ce = r.value();
            assertThat(ce.getSpecVersion().toString()).isEqualTo("1.0");
            assertThat(ce.getSource()).isEqualTo(SOURCE);
            assertThat(ce.getType()).isEqualTo("OrderPlaced");
            assertThat(ce.getSubject()).isEqualTo(row.aggregateId());
            assertThat(r.key()).isEqualTo(row.aggregateId());
            java.time.Instant created = createdAt.get(id).toInstant();
            if (mode.equals("poll")) {
                assertThat(ce.getTime().toInstant()).isEqualTo(created);
            } else {
                // CDC streams the commit time (Debezium's source.ts_ms, milliseconds), not created_at, which its
                // publication does not carry; rows the start-up rescan publishes carry created_at.
                assertThat(ce.getTime().toInstant()).isBetween(created.truncatedTo(java.time.temporal.ChronoUnit.MILLIS),
                        created.plusSeconds(10));
            }
            assertThat(new String(r.headers().lastHeader("id").value(), StandardCharsets.UTF_8)).isEqualTo(id);
            if (row.payload() == null) {
                assertThat(ce.getData()).as("null payload: no data").isNull();
            } else {
                assertThat(ce.getDataContentType()).isEqualTo("application/json");
                assertThat(json.readTree(ce.getData().toBytes())).isEqualTo(json.readTree(row.payload()));
            }
            if (row.headers() != null) {
                assertThat(new String(r.headers().lastHeader("traceparent").value(), StandardCharsets.UTF_8))
                        .isEqualTo(TRACEPARENT);
            }
        }
        for (int k = 0; k < 4; k++) {
            String key = "order-" + k;
            List<String> written = rows.stream().filter(r -> r.aggregateId().equals(key))
                    .map(r -> r.id().toString()).toList();
            assertThat(orderPerKey.get(key)).as("per-key order of %s", key).isEqualTo(written);
        }
    }

    private static Map<String, OffsetDateTime> createdAt(TestDatabase database) throws Exception {
        Map<String, OffsetDateTime> created = new HashMap<>();
        try (Connection c = database.connect();
             PreparedStatement ps = c.prepareStatement("SELECT id::text, created_at FROM outbox");
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                created.put(rs.getString(1), rs.getObject(2, OffsetDateTime.class));
            }
        }
        return created;
    }

    private static List<ConsumerRecord<String, CloudEvent>> consume(TestKafka kafka, String topic, int expected) {
        Map<String, Object> config = new HashMap<>(kafka.clientProperties());
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "cloudevents-it-" + UUID.randomUUID());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<String, CloudEvent>> records = new ArrayList<>();
        try (KafkaConsumer<String, CloudEvent> consumer = new KafkaConsumer<>(config, new StringDeserializer(),
                new CloudEventDeserializer())) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofSeconds(90).toNanos();
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }
}
