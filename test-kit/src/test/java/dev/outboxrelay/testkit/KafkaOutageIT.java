package dev.outboxrelay.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;

/** Broker outage on a dedicated broker, so that the shared one is never disturbed. */
class KafkaOutageIT {

    @Test
    void producerResumesAfterBrokerRestartOnTheSameAddress() throws Exception {
        try (TestKafka kafka = TestKafka.start();
             KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                     ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                     ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                     ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                     ProducerConfig.ACKS_CONFIG, "all",
                     ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                     ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000,
                     ProducerConfig.MAX_BLOCK_MS_CONFIG, 30_000,
                     ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000,
                     ProducerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 500))) {
            kafka.createTopic("outage", 2);
            String address = kafka.bootstrapServers();
            List<String> ids = new ArrayList<>();
            send(producer, "before", ids).get(10, TimeUnit.SECONDS);

            kafka.stop();
            assertThat(kafka.isRunning()).isFalse();
            assertThat(canConnect(address)).as("broker port closed while stopped").isFalse();
            // Sent during the outage from another thread: send() may block (up to max.block.ms) while the
            // producer has no usable metadata, which is ordinary producer behaviour.
            ExecutorService sender = Executors.newSingleThreadExecutor();
            List<Future<RecordMetadata>> pending = new ArrayList<>();
            try {
                Future<List<Future<RecordMetadata>>> sent = sender.submit(() -> {
                    List<Future<RecordMetadata>> futures = new ArrayList<>();
                    for (int i = 0; i < 5; i++) {
                        futures.add(send(producer, "during-" + i, ids));
                    }
                    return futures;
                });
                Pacing.pause(500); // the outage lasts while the sends wait for metadata
                kafka.restart();
                pending.addAll(sent.get(30, TimeUnit.SECONDS));
            } finally {
                sender.shutdownNow();
            }
            assertThat(kafka.bootstrapServers()).isEqualTo(address);
            assertThat(canConnect(address)).isTrue();
            for (Future<RecordMetadata> f : pending) {
                f.get(30, TimeUnit.SECONDS);
            }
            send(producer, "after", ids).get(10, TimeUnit.SECONDS);

            List<ReadRecord> records = TopicReader.of(kafka).readUntilIds("outage", Set.copyOf(ids), Duration.ofSeconds(20));
            DeliveryReport report = DeliveryReport.of(records, ids);
            // Data written before the outage survives it; the idempotent producer adds no duplicates.
            assertThat(report.exactlyOnce()).as(report.toString()).isTrue();
        }
    }

    private static Future<RecordMetadata> send(KafkaProducer<String, String> producer, String id, List<String> ids) {
        ids.add(id);
        ProducerRecord<String, String> record = new ProducerRecord<>("outage", "same-key", id);
        record.headers().add("id", id.getBytes(StandardCharsets.UTF_8));
        return producer.send(record);
    }

    private static boolean canConnect(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1))), 1000);
            return true;
        } catch (java.io.IOException e) {
            return false;
        }
    }
}
