package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.Throughout;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * Memory bounded in bytes, with the shipped jar and the deploy files' JVM flags ({@code -Xmx256m}, serial GC,
 * exit on out-of-memory): 300 rows of 1 MB and 10,000 small rows written while the broker is down for 30 s are all
 * delivered once it is back, in per-key order, with no out-of-memory and a bounded peak RSS. Both modes run side by
 * side through the same outage. Before the byte budget (counts only), the CDC relay of this test died with
 * "Terminating due to java.lang.OutOfMemoryError: Java heap space" once the broker came back.
 */
class LargeRowsIT {

    private static final int BIG_ROWS = 300;
    private static final int BIG_CHARS = 1_000_000;
    private static final int SMALL_ROWS = 10_000;
    private static final Duration OUTAGE = Duration.ofSeconds(30);
    /** The bound documented in docs/operator-guide.md ("Memory is bounded in bytes"). */
    private static final long PEAK_RSS_MIB = 400;

    @Test
    void bigRowsWrittenDuringABrokerOutageAreDeliveredWithinTheDeployHeapInBothModes() throws Exception {
        List<String> jvm = deployJvmFlags();
        assertThat(jvm).contains("-Xmx256m", "-XX:+ExitOnOutOfMemoryError");
        Map<String, TestDatabase> databases = new LinkedHashMap<>();
        Map<String, RelayProcess> relays = new LinkedHashMap<>();
        Map<String, List<String>> ids = new LinkedHashMap<>();
        List<PublishingRelay> started = new ArrayList<>();
        try (TestKafka kafka = TestKafka.start()) {
            List<PublishingRelay.Builder> builders = new ArrayList<>();
            for (String mode : List.of("poll", "cdc")) {
                kafka.createTopic(topic(mode), 3);
                builders.add(PublishingRelay.of("large-rows-" + mode, mode).kafka(kafka).jvm(jvm)
                        .args("--topic-template", topic(mode), "--relay-name", "large-rows-" + mode));
            }
            started.addAll(PublishingRelay.startAll(builders));
            for (PublishingRelay r : started) {
                databases.put(r.mode, r.database);
                relays.put(r.mode, r.relay);
                ids.put(r.mode, new ArrayList<>());
            }
            for (String mode : relays.keySet()) {
                // One event before the outage, so the producer knows the topic's partitions.
                ids.get(mode).addAll(new OutboxWriter(databases.get(mode), "public.outbox")
                        .insert(List.of(OutboxWriter.Row.of("Order", "warm-up", 0))));
                TopicReader.of(kafka).readUntilIds(topic(mode), new HashSet<>(ids.get(mode)), Duration.ofSeconds(60));
            }

            kafka.stop();
            long down = System.nanoTime();
            Random random = new Random(42);
            for (int round = 0; round < 20; round++) {
                for (String mode : relays.keySet()) {
                    OutboxWriter writer = new OutboxWriter(databases.get(mode), "public.outbox");
                    List<OutboxWriter.Row> small = new ArrayList<>();
                    for (int i = 0; i < SMALL_ROWS / 20; i++) {
                        small.add(OutboxWriter.Row.of("Order", "small-" + (i % 100), round * 1000 + i));
                    }
                    ids.get(mode).addAll(writer.insert(small));
                    for (int b = 0; b < BIG_ROWS / 20; b += 5) {
                        List<OutboxWriter.Row> big = new ArrayList<>();
                        for (int i = b; i < b + 5; i++) {
                            big.add(bigRow("big-" + (i % 7), random, (round + i) % 2 == 0));
                        }
                        ids.get(mode).addAll(writer.insert(big));
                    }
                }
            }
            long left = OUTAGE.toMillis() - (System.nanoTime() - down) / 1_000_000;
            Throughout.holds("both relays alive through the outage", Duration.ofMillis(Math.max(0, left)),
                    () -> relays.values().stream().allMatch(r -> r.process.isAlive()));
            for (RelayProcess relay : relays.values()) {
                assertThat(relay.process.isAlive()).as("alive through the outage: %s", relay.log).isTrue();
            }
            kafka.restart();

            for (String mode : relays.keySet()) {
                RelayProcess relay = relays.get(mode);
                List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(topic(mode),
                        new HashSet<>(ids.get(mode)), Duration.ofSeconds(240));
                DeliveryReport report = DeliveryReport.of(records, ids.get(mode));
                assertThat(report.atLeastOnceInOrder()).as("%s: %s", mode, report).isTrue();
                assertThat(records).as("%s: the big rows arrive whole", mode)
                        .filteredOn(r -> r.key().startsWith("big-")).allMatch(r -> r.value().length() > BIG_CHARS);
                OutboxWriter writer = new OutboxWriter(databases.get(mode), "public.outbox");
                await().atMost(Duration.ofSeconds(60)).until(() -> writer.unsent() == 0);
                assertThat(relay.process.isAlive()).as("%s relay alive", mode).isTrue();
                assertThat(relay.logText()).as("%s log", mode).doesNotContain("OutOfMemoryError");
                long peak = relay.peakRssMib();
                System.out.printf("LargeRowsIT %s: peak RSS %d MiB%n", mode, peak);
                assertThat(peak).as("%s peak RSS in MiB", mode).isLessThan(PEAK_RSS_MIB);
            }
        } finally {
            for (PublishingRelay r : started) {
                r.close();
            }
        }
    }

    /** The JVM flags the systemd unit starts the relay with (the image's JAVA_OPTS plus exit on OOM). */
    private static List<String> deployJvmFlags() throws Exception {
        String unit = Files.readString(Path.of("..", "deploy", "systemd", "outbox-relay.service"));
        String exec = unit.lines().filter(l -> l.startsWith("ExecStart=")).findFirst().orElseThrow();
        String flags = exec.substring(exec.indexOf("java ") + 5, exec.indexOf(" -jar "));
        return dev.outboxrelay.testkit.TestJvm.words(flags);
    }

    /** ~1 MB of JSON: random hex (stored as is) or a repeated pattern (stored compressed). */
    private static OutboxWriter.Row bigRow(String key, Random random, boolean compressible) {
        StringBuilder data = new StringBuilder(BIG_CHARS);
        if (compressible) {
            while (data.length() < BIG_CHARS) {
                data.append("outbox-relay ");
            }
        } else {
            while (data.length() < BIG_CHARS) {
                data.append(Long.toHexString(random.nextLong()));
            }
        }
        data.setLength(BIG_CHARS);
        return new OutboxWriter.Row(UUID.randomUUID(), "Order", key, "Big",
                "{\"data\": \"" + data + "\"}", null);
    }

    private static String topic(String mode) {
        return "large-rows-" + mode;
    }
}
