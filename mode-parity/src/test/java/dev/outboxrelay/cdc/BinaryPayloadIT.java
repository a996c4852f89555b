package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.format.MessageFormat;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.schema.TableLayout;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code bytea} payloads (what an application serialized with Avro, Protobuf or a Schema Registry serializer)
 * reach the topic byte for byte in both modes, with the configured content-type header; bytes no text decoding
 * would keep (zeros, invalid UTF-8) included, and a NULL payload is still a tombstone.
 */
class BinaryPayloadIT {

    private static final OutboxTable TABLE = OutboxTable.parse("public.binevents").withLayout(TableLayout.DEBEZIUM);
    private static final String PUBLICATION = "binevents_pub";

    private TestDatabase db;
    private TestKafka kafka;
    private String topic;
    private OutboxSource relay;

    @BeforeEach
    void setUp() throws Exception {
        db = TestPostgres.shared().createDatabase("binary");
        db.execute("CREATE TABLE public.binevents (id uuid PRIMARY KEY, aggregatetype text NOT NULL,"
                + " aggregateid text NOT NULL, type text NOT NULL, payload bytea)");
        CdcRelays.adopt(db, TABLE, PUBLICATION);
        kafka = TestKafka.shared();
        String prefix = "binary-" + UUID.randomUUID().toString().substring(0, 8);
        topic = prefix + ".Sensor";
        kafka.createTopic(topic, 1);
    }

    @AfterEach
    void tearDown() {
        if (relay != null) {
            relay.close();
        }
        db.drop();
    }

    @ParameterizedTest
    @ValueSource(strings = {"poll", "cdc"})
    void binaryPayloadsArriveUnchanged(String mode) throws Exception {
        EventRouter router = EventRouter.topicTemplate(topic.substring(0, topic.indexOf('.')) + ".${aggregateType}",
                null, Set.of(), MessageFormat.of(MessageFormat.Kind.RELAY, null, null, TABLE.layout(),
                        "application/x-protobuf"));
        relay = mode.equals("poll")
                ? PollBesideCdc.startPoll(db, TABLE.toString(), kafka.bootstrapServers(), router, TABLE)
                : CdcRelays.start(CdcRelays.settings(db, TABLE.toString(), Map.of()).table(TABLE)
                        .publication(PUBLICATION).build(), kafka.bootstrapServers(), router, RelayListener.none());
        await().atMost(Duration.ofMinutes(1)).until(relay::isHealthy);

        Map<String, byte[]> written = new LinkedHashMap<>();
        Random random = new Random(7);
        try (Connection c = db.connect(db.relayUser(), db.relayPassword()); PreparedStatement ps = c.prepareStatement(
                "INSERT INTO public.binevents VALUES (?, 'Sensor', ?, 'Reading', ?)")) {
            for (int i = 0; i < 40; i++) {
                byte[] payload = i == 5 ? null : new byte[i == 6 ? 0 : 1 + random.nextInt(3000)];
                if (payload != null) {
                    random.nextBytes(payload);
                    if (payload.length > 2) {
                        payload[0] = 0;
                        payload[1] = (byte) 0xC3; // a UTF-8 lead byte followed by anything: invalid as text
                    }
                }
                UUID id = UUID.randomUUID();
                ps.setObject(1, id);
                ps.setString(2, "sensor-" + (i % 4));
                ps.setBytes(3, payload);
                ps.executeUpdate();
                written.put(id.toString(), payload);
            }
        }

        Map<String, ConsumerRecord<byte[], byte[]>> read = read(written.size());
        assertThat(read.keySet()).containsExactlyInAnyOrderElementsOf(written.keySet());
        for (Map.Entry<String, byte[]> w : written.entrySet()) {
            ConsumerRecord<byte[], byte[]> r = read.get(w.getKey());
            assertThat(r.value()).as("payload of %s", w.getKey()).isEqualTo(w.getValue());
            String contentType = r.headers().lastHeader("content-type") == null ? null
                    : new String(r.headers().lastHeader("content-type").value(), StandardCharsets.UTF_8);
            assertThat(contentType).as("content type of %s", w.getKey())
                    .isEqualTo(w.getValue() == null ? null : "application/x-protobuf");
        }
    }

    private Map<String, ConsumerRecord<byte[], byte[]>> read(int expected) {
        Map<String, Object> config = new HashMap<>(kafka.clientProperties());
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "binary-" + UUID.randomUUID());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        Map<String, ConsumerRecord<byte[], byte[]>> byId = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + Duration.ofMinutes(1).toNanos();
            while (byId.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    byId.putIfAbsent(new String(r.headers().lastHeader("id").value(), StandardCharsets.UTF_8), r);
                }
            }
        }
        return byId;
    }
}
