package dev.outboxrelay.inbox.example;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxrelay.testkit.PostgresDatabaseExtension;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * The guide's example consumer against a real broker and database: duplicates on the topic (the relay's
 * at-least-once retries) and redelivery after a crash between the database commit and the offset commit are
 * each processed once.
 */
class ExampleConsumerIT {

    @RegisterExtension
    final PostgresDatabaseExtension db = new PostgresDatabaseExtension();

    private final TestKafka kafka = TestKafka.shared();
    private String topic;
    private PGSimpleDataSource dataSource;

    @BeforeEach
    void setUp() {
        topic = "orders-" + UUID.randomUUID();
        kafka.createTopic(topic, 1);
        TestDatabase database = db.database();
        dataSource = new PGSimpleDataSource();
        dataSource.setUrl(database.jdbcUrl());
        dataSource.setUser(database.superUser());
        dataSource.setPassword(database.superPassword());
    }

    private void send(String aggregateId, String eventId) throws Exception {
        Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName(),
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config)) {
            ProducerRecord<byte[], byte[]> record = new ProducerRecord<>(topic,
                    aggregateId.getBytes(StandardCharsets.UTF_8), "{}".getBytes(StandardCharsets.UTF_8));
            if (eventId != null) {
                record.headers().add("id", eventId.getBytes(StandardCharsets.UTF_8));
            }
            producer.send(record).get(30, TimeUnit.SECONDS);
        }
    }

    private long counted(String aggregateId) {
        return db.database().queryLong("SELECT coalesce(sum(events), 0) FROM events_per_aggregate"
                + " WHERE aggregate_id = '" + aggregateId + "'");
    }

    private long committedOffset() {
        try {
            Map<TopicPartition, OffsetAndMetadata> offsets = kafka.admin()
                    .listConsumerGroupOffsets(ExampleConsumer.GROUP).partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS);
            OffsetAndMetadata o = offsets.get(new TopicPartition(topic, 0));
            return o == null ? -1 : o.offset();
        } catch (Exception e) {
            throw new IllegalStateException("could not read the committed offsets of " + ExampleConsumer.GROUP, e);
        }
    }

    /** Polls until {@code count} records were read (the first polls may return nothing while joining the group). */
    private static int pollUntilRead(ExampleConsumer consumer, int count) throws Exception {
        int ran = 0;
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (consumer.recordsRead() < count) {
            assertThat(System.nanoTime()).as("records read before the deadline").isLessThan(deadline);
            ran += consumer.pollOnce(Duration.ofMillis(500));
        }
        return ran;
    }

    @Test
    void duplicatesOnTheTopicAreCountedOnce() throws Exception {
        String first = UUID.randomUUID().toString();
        String second = UUID.randomUUID().toString();
        send("order-1", first);
        send("order-1", second);
        send("order-1", first); // the relay re-sent it: it did not see Kafka's acknowledgement in time
        send("order-2", UUID.randomUUID().toString());

        try (ExampleConsumer consumer = new ExampleConsumer(kafka.bootstrapServers(), topic, dataSource)) {
            consumer.createTables();
            assertThat(pollUntilRead(consumer, 4)).isEqualTo(3);
        }

        assertThat(counted("order-1")).isEqualTo(2);
        assertThat(counted("order-2")).isEqualTo(1);
        assertThat(committedOffset()).isEqualTo(4);
    }

    @Test
    void crashAfterTheDatabaseCommitButBeforeTheOffsetCommitIsAbsorbed() throws Exception {
        send("order-9", UUID.randomUUID().toString());
        send("order-9", UUID.randomUUID().toString());

        try (ExampleConsumer crashing = new ExampleConsumer(kafka.bootstrapServers(), topic, dataSource)) {
            crashing.createTables();
            int ran = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (ran < 2) {
                assertThat(System.nanoTime()).as("records read before the deadline").isLessThan(deadline);
                ConsumerRecords<byte[], byte[]> records = crashing.pollWithoutCommit(Duration.ofMillis(500));
                ran += crashing.process(records);
            }
            // ... and the process dies here: the work committed, the offsets did not.
        }
        assertThat(counted("order-9")).isEqualTo(2);
        assertThat(committedOffset()).isEqualTo(-1);

        try (ExampleConsumer restarted = new ExampleConsumer(kafka.bootstrapServers(), topic, dataSource)) {
            assertThat(pollUntilRead(restarted, 2)).isZero();
        }
        assertThat(counted("order-9")).isEqualTo(2);
        assertThat(committedOffset()).isEqualTo(2);
    }

    @Test
    void recordWithoutIdHeaderStopsTheConsumerWithoutCommitting() throws Exception {
        send("order-5", null);

        try (ExampleConsumer consumer = new ExampleConsumer(kafka.bootstrapServers(), topic, dataSource)) {
            consumer.createTables();
            assertThatThrownBy(() -> pollUntilRead(consumer, 1))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageStartingWith("event id is missing (null)");
        }
        assertThat(counted("order-5")).isZero();
        assertThat(committedOffset()).isEqualTo(-1);
    }
}
