package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ItLogs;
import dev.outboxrelay.testkit.KafkaProcess;
import dev.outboxrelay.testkit.Pacing;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.Throughout;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/**
 * A broker that stops answering without closing anything (its process frozen with SIGSTOP: the kernel still takes
 * connections and requests), for longer than the producer's request timeout, while events keep being written: both
 * modes notice (not ready, naming Kafka) within the documented 15 s plus a probe, stay live (an outage is not a
 * reason to restart), and once the broker answers again deliver everything in per-key order. Also the slow broker:
 * the same path, only shorter.
 */
class BrokerBlackHoleIT {

    /** Longer than the relays' request timeout, which the test lowers to 15 s (Kafka's default is 30 s). */
    private static final Duration BLACK_HOLE = Duration.ofSeconds(25);

    @Test
    void aBrokerThatStopsAnsweringIsDetectedAndEverythingIsDeliveredOnceItAnswersAgain() throws Exception {
        Map<String, TestDatabase> databases = new LinkedHashMap<>();
        Map<String, RelayProcess> relays = new LinkedHashMap<>();
        Map<String, List<String>> ids = new LinkedHashMap<>();
        List<Thread> writers = new ArrayList<>();
        AtomicBoolean writing = new AtomicBoolean(true);
        List<PublishingRelay> started = new ArrayList<>();
        try (KafkaProcess kafka = KafkaProcess.start(ItLogs.file("black-hole-broker"))) {
            List<PublishingRelay.Builder> builders = new ArrayList<>();
            for (String mode : List.of("poll", "cdc")) {
                kafka.createTopic(topic(mode), 3);
                builders.add(PublishingRelay.of("broker-hole-" + mode, mode).bootstrap(kafka.bootstrapServers())
                        .args("--topic-template", topic(mode), "--relay-name", "broker-hole-" + mode,
                                "--kafka.request.timeout.ms=15000"));
            }
            started.addAll(PublishingRelay.startAll(builders));
            for (PublishingRelay r : started) {
                databases.put(r.mode, r.database);
                relays.put(r.mode, r.relay);
                ids.put(r.mode, Collections.synchronizedList(new ArrayList<>()));
            }
            for (String mode : relays.keySet()) {
                OutboxWriter writer = new OutboxWriter(databases.get(mode), "public.outbox");
                Thread t = new Thread(() -> {
                    for (int round = 0; writing.get(); round++) {
                        List<OutboxWriter.Row> rows = new ArrayList<>();
                        for (int i = 0; i < 10; i++) {
                            rows.add(OutboxWriter.Row.of("Order", "k-" + (i % 25), round * 10 + i));
                        }
                        ids.get(mode).addAll(writer.insert(rows));
                        pace(100);
                    }
                }, "writer-" + mode);
                t.start();
                writers.add(t);
            }
            pace(3000); // relaying under load before the broker freezes

            kafka.freeze();
            long frozen = System.nanoTime();
            for (String mode : relays.keySet()) {
                RelayProcess relay = relays.get(mode);
                await().atMost(Duration.ofSeconds(35)).until(() -> status(relay, "/health/ready") == 503);
                System.out.printf("BrokerBlackHoleIT %s: not ready %d ms after the broker froze%n", mode,
                        (System.nanoTime() - frozen) / 1_000_000);
                assertThat(relay.readiness()).as("%s names Kafka", mode).contains("\"kafka\":\"unreachable");
            }
            Throughout.holds("both relays stay live while the broker is a black hole",
                    BLACK_HOLE.minusNanos(System.nanoTime() - frozen), () -> relays.values().stream()
                            .allMatch(relay -> status(relay, "/health/live") == 200));
            kafka.thaw();
            pace(5000); // writers go on while the relays recover
            writing.set(false);
            for (Thread t : writers) {
                t.join();
            }

            for (String mode : relays.keySet()) {
                RelayProcess relay = relays.get(mode);
                List<String> written = new ArrayList<>(ids.get(mode));
                List<ReadRecord> records = new TopicReader(kafka.bootstrapServers()).readUntilIds(topic(mode),
                        new HashSet<>(written), Duration.ofSeconds(180));
                DeliveryReport report = DeliveryReport.of(records, written);
                assertThat(report.atLeastOnceInOrder()).as("%s: %s", mode, report).isTrue();
                await().atMost(Duration.ofSeconds(60)).until(() -> status(relay, "/health/ready") == 200);
                assertThat(relay.process.isAlive()).isTrue();
                OutboxWriter writer = new OutboxWriter(databases.get(mode), "public.outbox");
                await().atMost(Duration.ofSeconds(60)).until(() -> writer.unsent() == 0);
            }
        } finally {
            writing.set(false);
            for (Thread t : writers) {
                t.join(30_000);
            }
            for (PublishingRelay r : started) {
                r.close();
            }
        }
    }

    private static int status(RelayProcess relay, String path) {
        HttpResponse<String> r = relay.get(path);
        return r == null ? -1 : r.statusCode();
    }

    private static void pace(long millis) {
        try {
            Pacing.pause(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String topic(String mode) {
        return "broker-hole-" + mode;
    }
}
