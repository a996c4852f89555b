package dev.outboxrelay.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

class TestKafkaIT {

    private static KafkaProducer<String, String> producer;

    @BeforeAll
    static void producer() {
        producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, TestKafka.shared().bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000,
                ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000));
    }

    @AfterAll
    static void closeProducer() {
        producer.close(Duration.ofSeconds(5));
    }

    @Test
    void producesAndReadsBackWithHeadersAndTombstones() throws Exception {
        TestKafka kafka = TestKafka.shared();
        kafka.createTopic("roundtrip", 3);
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
            String id = "e-" + i;
            ids.add(id);
            ProducerRecord<String, String> record = new ProducerRecord<>("roundtrip", "k" + (i % 5), i == 29 ? null : "v" + i);
            record.headers().add("id", id.getBytes(StandardCharsets.UTF_8));
            record.headers().add("type", "first".getBytes(StandardCharsets.UTF_8));
            record.headers().add("type", "second".getBytes(StandardCharsets.UTF_8));
            producer.send(record).get(10, TimeUnit.SECONDS);
        }

        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds("roundtrip", Set.copyOf(ids), Duration.ofSeconds(15));

        assertThat(records).hasSize(30);
        assertThat(records).extracting(ReadRecord::partition).containsOnly(0, 1, 2);
        ReadRecord last = records.stream().filter(r -> "e-29".equals(r.id())).findFirst().orElseThrow();
        assertThat(last.isTombstone()).isTrue();
        assertThat(last.key()).isEqualTo("k4");
        assertThat(last.headers()).containsEntry("type", "second");
        assertThat(last.rawHeaders()).extracting(ReadRecord.Header::valueAsString).containsExactly("e-29", "first", "second");
        assertThat(last.timestamp()).isPositive();
        DeliveryReport report = DeliveryReport.of(records, ids);
        assertThat(report.exactlyOnce()).as(report.toString()).isTrue();
        // Reading again sees the same records: the reader commits nothing.
        assertThat(TopicReader.of(kafka).readAll("roundtrip")).hasSize(30);
    }

    @Test
    void topicsAreCreatedAutomatically() throws Exception {
        TestKafka kafka = TestKafka.shared();
        producer.send(new ProducerRecord<>("routed.orders.v1", "k", "v")).get(20, TimeUnit.SECONDS);
        assertThat(kafka.admin().listTopics().names().get(10, TimeUnit.SECONDS)).contains("routed.orders.v1");
        assertThat(TopicReader.of(kafka).read("routed.orders.v1", 1, Duration.ofSeconds(10)))
                .singleElement().extracting(ReadRecord::value).isEqualTo("v");
    }

    @Test
    void perTopicMaxMessageBytesRejectsPoisonRecords() throws Exception {
        TestKafka kafka = TestKafka.shared();
        kafka.createTopic("small-messages", 1, Map.of("max.message.bytes", "2048"));
        producer.send(new ProducerRecord<>("small-messages", "k", "fits")).get(10, TimeUnit.SECONDS);
        String poison = "x".repeat(10_000);
        assertThatThrownBy(() -> producer.send(new ProducerRecord<>("small-messages", "k", poison)).get(20, TimeUnit.SECONDS))
                .isInstanceOf(ExecutionException.class)
                .hasCauseInstanceOf(RecordTooLargeException.class);
        assertThat(TopicReader.of(kafka).readAll("small-messages")).extracting(ReadRecord::value).containsExactly("fits");
    }

    @Test
    void readerReturnsWhatItHasOnTimeoutAndNothingForMissingTopics() {
        TopicReader reader = TopicReader.of(TestKafka.shared());
        assertThat(reader.readAll("does-not-exist")).isEmpty();
        long started = System.nanoTime();
        assertThat(reader.read("does-not-exist-either", 1, Duration.ofMillis(700))).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
        assertThat(TestKafka.shared().admin().listTopics().names().toCompletionStage().toCompletableFuture().join())
                .doesNotContain("does-not-exist", "does-not-exist-either");
    }

    @Test
    void sharedInstanceIsOneBroker() {
        assertThat(TestKafka.shared()).isSameAs(TestKafka.shared());
        TestKafka.shared().close(); // no-op for the shared instance
        assertThat(TestKafka.shared().isRunning()).isTrue();
    }
}
