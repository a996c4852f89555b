package dev.outboxrelay.demo;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * One demo run: infrastructure up, relay started, writer and consumer running with a progress line per second,
 * then the verdict from the test kit's {@link DeliveryReport}, the same judge the contract suite uses.
 */
final class Demo {

    /** The relay's source. */
    enum Mode { POLL, CDC }

    /** What to run. */
    record Settings(Mode mode, int events, int rate, int keys) {
    }

    static final String AGGREGATE_TYPE = "order";
    static final String TOPIC_TEMPLATE = "demo.${aggregateType}";
    static final String TOPIC = "demo." + AGGREGATE_TYPE;
    /** Several partitions, so that per-key order is a real claim and not an artefact of one partition. */
    static final int PARTITIONS = 4;
    /** Give up waiting for the rest when nothing new arrived for this long after the writer finished. */
    private static final Duration STALL = Duration.ofSeconds(30);

    private final Settings settings;
    private final PrintStream out;

    Demo(Settings settings, PrintStream out) {
        this.settings = settings;
        this.out = out;
    }

    /** Runs the demo; true when nothing was lost and per-key order held. */
    boolean run() {
        long started = System.nanoTime();
        out.printf(Locale.ROOT, "outbox-relay demo: %d events over %d aggregates at %d/s, --mode %s%n",
                settings.events(), settings.keys(), settings.rate(), mode());
        try (TestPostgres pg = step("PostgreSQL", TestPostgres::start);
             TestKafka kafka = step("Kafka", Demo::startKafka)) {
            TestDatabase db = pg.createDatabase("demo");
            migrate(db);
            kafka.createTopic(TOPIC, PARTITIONS);
            RelayCounter relayed = new RelayCounter();
            try (OutboxSource source = step("relay (--mode " + mode() + ")",
                    () -> DemoRelay.start(mode(), db, kafka.bootstrapServers(), TOPIC_TEMPLATE, relayed));
                 LiveConsumer consumer = new LiveConsumer(kafka.bootstrapServers(), TOPIC)) {
                warmUp(db, relayed);
                out.printf(Locale.ROOT, "ready in %.1f s; writing to table public.outbox, consuming topic %s"
                        + " (%d partitions)%n", seconds(System.nanoTime() - started), TOPIC, PARTITIONS);
                EventWriter writer = new EventWriter(db, settings.events(), settings.rate(), settings.keys(),
                        consumer::committed);
                consumer.start();
                writer.start();
                boolean complete = watch(writer, consumer, relayed);
                writer.join();
                if (writer.failure() != null) {
                    out.println("writer failed: " + writer.failure());
                    return false;
                }
                consumer.stop();
                DeliveryReport report = DeliveryReport.of(consumer.records(), writer.idsInOrder());
                return verdict(report, consumer, complete, started);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.println("interrupted");
            return false;
        }
    }

    private String mode() {
        return settings.mode().name().toLowerCase(Locale.ROOT);
    }

    /** Prints progress each second until everything arrived, or nothing more arrives after the writer is done. */
    private boolean watch(EventWriter writer, LiveConsumer consumer, RelayCounter relayed)
            throws InterruptedException {
        long start = System.nanoTime();
        long lastWritten = 0;
        long lastRelayed = 0;
        long lastReceived = 0;
        long lastChange = start;
        while (true) {
            Thread.sleep(1000);
            long written = writer.written();
            long sent = relayed.count();
            long received = consumer.uniqueReceived();
            Percentiles window = consumer.takeWindow();
            out.printf(Locale.ROOT, "[%3ds] written %7d (%5d/s)  relayed %7d (%5d/s)  received %7d"
                            + "  latency p50 %s p99 %s%n",
                    (System.nanoTime() - start) / 1_000_000_000L, written, written - lastWritten, sent,
                    sent - lastRelayed, received, window.format(0.50), window.format(0.99));
            long now = System.nanoTime();
            if (received != lastReceived || written != lastWritten) {
                lastChange = now;
            }
            lastWritten = written;
            lastRelayed = sent;
            lastReceived = received;
            if (writer.done() && received >= writer.written()) {
                return true;
            }
            if (writer.done() && now - lastChange > STALL.toNanos()) {
                out.printf(Locale.ROOT, "nothing new arrived for %d s; judging what was received%n",
                        STALL.toSeconds());
                return false;
            }
        }
    }

    private boolean verdict(DeliveryReport report, LiveConsumer consumer, boolean complete, long started) {
        Percentiles all = consumer.allLatencies();
        out.printf(Locale.ROOT, "received %d records for %d events; end-to-end latency (commit -> consumer)"
                        + " p50 %s, p99 %s, max %s%n", report.totalRecords(), consumer.uniqueReceived(),
                all.format(0.50), all.format(0.99), all.format(1.0));
        boolean ok = report.atLeastOnceInOrder() && complete;
        String order = report.inPerKeyOrder() ? "per-key order ok"
                : "per-key order VIOLATED (" + report.orderViolations().size() + " events, "
                        + report.keysOnSeveralPartitions().size() + " keys on several partitions)";
        out.printf(Locale.ROOT, "lost %d, duplicates %d, %s%n", report.lostIds().size(), report.duplicateCount(),
                order);
        if (!report.lostIds().isEmpty()) {
            out.println("lost ids (first 10): " + report.lostIds().subList(0, Math.min(10,
                    report.lostIds().size())));
        }
        report.orderViolations().stream().limit(10).forEach(v -> out.println("order violation: " + v));
        out.printf(Locale.ROOT, "%s in %.1f s%n", ok ? "OK" : "FAILED", seconds(System.nanoTime() - started));
        return ok;
    }

    /**
     * The broker's storage formatter prints to System.out; the demo's screen is for the demo. Only while
     * nothing else of ours runs, so nothing else is swallowed.
     */
    private static TestKafka startKafka() {
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(OutputStream.nullOutputStream(), true, StandardCharsets.UTF_8));
        try {
            return TestKafka.start(Map.of("num.partitions", "" + PARTITIONS));
        } finally {
            System.setOut(stdout);
        }
    }

    /**
     * One event to another topic before the clock starts, so that the producer's first connection and the
     * relay's first batch (hundreds of milliseconds, once) do not pass for steady-state latency.
     */
    private void warmUp(TestDatabase db, RelayCounter relayed) throws InterruptedException {
        db.execute("INSERT INTO public.outbox (id, aggregate_type, aggregate_id, event_type, payload)"
                + " VALUES (gen_random_uuid(), 'warmup', 'warmup', 'WarmUp', '{}')");
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (relayed.count() == 0 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
    }

    private static void migrate(TestDatabase db) {
        // As the superuser, like an application's owner role would; the relay then runs unprivileged.
        try (Connection c = db.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        } catch (SQLException e) {
            throw new IllegalStateException("migrate failed: " + e.getMessage(), e);
        }
        db.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + db.relayUser());
    }

    private interface Starter<T> {
        T start() throws Exception;
    }

    private <T> T step(String what, Starter<T> starter) {
        long t = System.nanoTime();
        out.print("starting " + what + " ... ");
        out.flush();
        try {
            T result = starter.start();
            out.printf(Locale.ROOT, "ok (%.1f s)%n", seconds(System.nanoTime() - t));
            return result;
        } catch (Exception e) {
            out.println("failed");
            throw e instanceof RuntimeException r ? r : new IllegalStateException(e);
        }
    }

    private static double seconds(long nanos) {
        return nanos / 1e9;
    }
}
