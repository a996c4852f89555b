package dev.outboxrelay.bench;

import dev.outboxrelay.testkit.KafkaProcess;
import dev.outboxrelay.testkit.Pacing;
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
 * per 500 ms window of commit time, so a slow first second shows; then a new relay JVM gets the same on the warm
 * database and broker (a restart or a failover: only the relay is cold). Usage, after {@code ./mvnw -o install
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
            try (Receiver rx = new Receiver(kafka.bootstrapServers(), "cold", config.partitions())) {
                // Rounds 1 and 2: everything just started, then the same relay once warm. Round 3: a new relay JVM
                // on the now warm PostgreSQL and broker, which is what a deploy, a restart or a failover gives.
                try (RelayProcess relay = relay(mode, jar, db, kafka, logs.resolve("relay.log"))) {
                    relay.start();
                    round(mode + " cold", load, rx, logs);
                    round(mode + " warm", load, rx, logs);
                }
                try (RelayProcess relay = relay(mode, jar, db, kafka, logs.resolve("relay-restarted.log"))) {
                    relay.start();
                    round(mode + " new-relay-jvm", load, rx, logs);
                }
                failover(mode, jar, db, kafka, load, rx, logs);
            }
            db.drop();
        }
    }

    private static RelayProcess relay(RelayProcess.Mode mode, Path jar, TestDatabase db, KafkaProcess kafka, Path log) {
        return new RelayProcess(mode, jar, jvmOptions(), words("probe.args"), db, kafka.bootstrapServers(), "cold", log);
    }

    /**
     * Round 4: a relay and a standby, both new JVMs; the active one is killed (SIGKILL) after the pre-load, one
     * 10-row transaction a second goes on until the standby delivered, then the burst on the new active instance.
     */
    private static void failover(RelayProcess.Mode mode, Path jar, TestDatabase db, KafkaProcess kafka,
                                 OutboxLoad load, Receiver rx, Path logs) throws Exception {
        try (RelayProcess active = relay(mode, jar, db, kafka, logs.resolve("relay-active.log"));
             RelayProcess standby = relay(mode, jar, db, kafka, logs.resolve("relay-standby.log"))) {
            active.start();
            awaitLog(active.log, mode == RelayProcess.Mode.CDC ? "is now the active relay" : "publishing");
            standby.start();
            awaitLog(standby.log, "standing by");
            preload(load);
            long before = load.committed();
            if (!rx.awaitDistinct(before, Duration.ofMinutes(1))) {
                throw new IllegalStateException("not delivered before the kill; see " + logs);
            }
            long killedAt = System.nanoTime();
            active.kill();
            long first = load.committed();
            while (rx.distinct() <= first) {
                load.writeFor(Duration.ofSeconds(1), 10, 1, 10);
            }
            long firstDelivered = Long.MAX_VALUE;
            for (long seq = first; seq < load.committed(); seq++) {
                long at = rx.firstReceivedNanos(seq);
                firstDelivered = at == 0 ? firstDelivered : Math.min(firstDelivered, at);
            }
            System.out.printf(Locale.ROOT, "%s failover: SIGKILL of the active relay -> first event delivered by the"
                    + " standby %d ms%n", mode, (firstDelivered - killedAt) / 1_000_000);
            round(mode + " after-failover", load, rx, logs);
        }
    }

    private static void awaitLog(Path log, String text) throws Exception {
        long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
        while (!Files.exists(log) || !Files.readString(log).contains(text)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no '" + text + "' in " + log + " after 2 minutes");
            }
            Pacing.pause(100);
        }
    }

    /**
     * What comes before a burst: one 10-row transaction a second for 10 s, or with {@code -Dprobe.idle=true} 5 s of
     * nothing (issue 38's pattern: the relay has then run no event at all).
     */
    private static void preload(OutboxLoad load) throws InterruptedException {
        if (Boolean.getBoolean("probe.idle")) {
            Pacing.pause(5_000); // the relay idles: no event at all before the burst
        } else {
            load.writeFor(Duration.ofSeconds(10), 10, 1, 10);
        }
    }

    /** The pre-load, then 10 s of 1,000 events/s; reports the burst. */
    private static void round(String name, OutboxLoad load, Receiver rx, Path logs) throws Exception {
        preload(load);
        long first = load.committed();
        load.writeFor(Duration.ofSeconds(10), 1_000, 1, 10);
        long end = load.committed();
        if (!rx.awaitDistinct(end, Duration.ofMinutes(2))) {
            throw new IllegalStateException("not delivered; see " + logs);
        }
        report(name, rx, load, first, end);
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
