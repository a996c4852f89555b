package dev.outboxrelay.bench;

import dev.outboxrelay.testkit.KafkaProcess;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestJvm;
import dev.outboxrelay.testkit.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * By hand, not a test: where issue 26's "ramp" comes from. A freshly started relay gets what the user
 * gave it (one 10-row transaction a second, then 1,000 events/s), and the same again once it is warm; printed
 * per 500 ms window of commit time, so a slow first second shows. Usage, after {@code ./mvnw -o install
 * -DskipTests}: {@code java -cp bench/target/outbox-bench.jar:bench/target/test-classes
 * dev.outboxrelay.bench.ColdStartProbe cdc|poll [relay jar]}; {@code -Dprobe.jvm="..."} adds JVM options to
 * the relay and {@code -Dprobe.args="..."} relay flags, for A/B runs.
 */
final class ColdStartProbe {

    private ColdStartProbe() {
    }

    public static void main(String[] args) throws Exception {
        RelayProcess.Mode mode = args[0].equals("poll") ? RelayProcess.Mode.POLL_MARK : RelayProcess.Mode.CDC;
        Path jar = Path.of(args.length > 1 ? args[1] : "relay/target/outbox-relay.jar").toAbsolutePath();
        Path logs = Files.createTempDirectory("cold-start-");
        BenchConfig config = BenchConfig.quick();
        try (TestPostgres postgres = Bench.startPostgres();
             KafkaProcess kafka = KafkaProcess.start(logs.resolve("broker.log"))) {
            ScenarioRunner runner = new ScenarioRunner(config, postgres, kafka);
            TestDatabase db = runner.freshDatabase("cold");
            kafka.createTopic("cold", config.partitions());
            OutboxLoad load = new OutboxLoad(db, config.aggregates());
            try (Receiver rx = new Receiver(kafka.bootstrapServers(), "cold", config.partitions());
                 RelayProcess relay = new RelayProcess(mode, jar, jvmOptions(), words("probe.args"), db,
                         kafka.bootstrapServers(), "cold", logs.resolve("relay.log"))) {
                relay.start();
                for (String round : List.of("cold", "warm")) {
                    load.writeFor(Duration.ofSeconds(10), 10, 1, 10);
                    long first = load.committed();
                    load.writeFor(Duration.ofSeconds(10), 1_000, 1, 10);
                    long end = load.committed();
                    if (!rx.awaitDistinct(end, Duration.ofMinutes(2))) {
                        throw new IllegalStateException("not delivered; see " + logs);
                    }
                    report(mode + " " + round, rx, load, first, end);
                }
            }
            db.drop();
        }
    }

    /** The deployment's JVM options, then any given in {@code -Dprobe.jvm="..."} (for A/B runs). */
    private static List<String> jvmOptions() {
        List<String> options = new java.util.ArrayList<>(TestJvm.words(BenchMain.DEPLOYMENT_JVM_OPTIONS));
        options.addAll(words("probe.jvm"));
        return options;
    }

    private static List<String> words(String property) {
        return TestJvm.words(System.getProperty(property, ""));
    }

    private static void report(String name, Receiver rx, OutboxLoad load, long first, long end) {
        long t0 = load.commitNanos(first);
        long windowNanos = Duration.ofMillis(500).toNanos();
        StringBuilder windows = new StringBuilder();
        long[] all = new long[(int) (end - first)];
        int n = 0;
        for (int w = 0; w < 6; w++) {
            long[] lat = new long[(int) (end - first)];
            int k = 0;
            for (long seq = first; seq < end; seq++) {
                long c = load.commitNanos(seq);
                if (c - t0 >= w * windowNanos && c - t0 < (w + 1) * windowNanos) {
                    lat[k++] = rx.firstReceivedNanos(seq) - c;
                }
            }
            long[] sorted = Arrays.copyOf(lat, k);
            Arrays.sort(sorted);
            windows.append(String.format(Locale.ROOT, " [%.1f-%.1fs p50 %d p99 %d max %d]", w * 0.5, w * 0.5 + 0.5,
                    ms(sorted, 0.5), ms(sorted, 0.99), k == 0 ? 0 : sorted[k - 1] / 1_000_000));
        }
        for (long seq = first; seq < end; seq++) {
            all[n++] = rx.firstReceivedNanos(seq) - load.commitNanos(seq);
        }
        Arrays.sort(all);
        System.out.printf(Locale.ROOT, "%s 1000/s after idle: p50 %d p99 %d max %d ms; first 3 s:%s%n", name,
                ms(all, 0.5), ms(all, 0.99), all[n - 1] / 1_000_000, windows);
    }

    private static long ms(long[] sorted, double q) {
        return sorted.length == 0 ? 0
                : sorted[Math.max(0, (int) Math.ceil(q * sorted.length) - 1)] / 1_000_000;
    }
}
