package dev.outboxrelay.bench;

import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.KafkaProcess;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestPostgres;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs one contender through the phases on a fresh database and topic: warm-up, pause, pre-fill the backlog,
 * resume and time the drain; for the relay also the steady state at 50 % of I, the full-write-load phase (the
 * writer flat out) and the stress phase (several writers flat out); then stops it and judges what the consumer
 * read.
 */
final class ScenarioRunner {

    /** What a contender is to the run: which phases it goes through. */
    enum Role {
        /** The relay: drain, the latency curve, the steady state and the full-load phases. */
        RELAY,
        /** A baseline a user would write: the drain and the 5,000/s point where the cost is measured. */
        BASELINE,
        /**
         * A floor (the unavoidable parts without the relay): the drain and the latency curve. Floors may skip a
         * late-committing row, so only one writer at a time writes while they run.
         */
        FLOOR
    }

    /** Builds a contender for a prepared database and topic. */
    @FunctionalInterface
    interface ContenderFactory {
        Contender create(TestDatabase database, String topic) throws Exception;
    }

    private static final Logger LOG = LoggerFactory.getLogger(ScenarioRunner.class);
    private static final Duration WAIT = Duration.ofMinutes(5);
    /** Warm-up of a time-capped contender: the naive poller relays ~100 events/s, a long warm-up would take minutes. */
    static final long CAPPED_WARMUP = 100;

    /** The latency curve's offered loads, events/s: idle (one 10-row transaction a second), 1,000, 5,000. */
    static final double[] LATENCY_RATES = {10, 1_000, 5_000};
    static final int LATENCY_TX_ROWS = 10;
    /** The label of the curve's point at half the contender's own drain rate. */
    static final String HALF_DRAIN = "50%-of-drain";
    /** The point every contender runs and where its CPU per event is measured: 5,000 events/s for the phase. */
    static final double COST_RATE = 5_000;
    static final String COST_LABEL = "5000/s";

    private final BenchConfig config;
    private final TestPostgres postgres;
    private final KafkaProcess kafka;

    ScenarioRunner(BenchConfig config, TestPostgres postgres, KafkaProcess kafka) {
        this.config = config;
        this.postgres = postgres;
        this.kafka = kafka;
    }

    /** A fresh, migrated database (outbox table, publication, CDC offsets table). */
    TestDatabase freshDatabase(String slug) throws Exception {
        TestDatabase db = postgres.createDatabase("bench_" + slug.replace('-', '_'));
        try (Connection c = db.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        return db;
    }

    /**
     * Runs a contender.
     *
     * @param role       which phases it runs
     * @param insertRate the measured insert ceiling I, rows/s
     * @param cap        drain time cap, or {@code null} to drain the whole backlog
     */
    Outcome run(String slug, ContenderFactory factory, Role role, double insertRate, Duration cap)
            throws Exception {
        TestDatabase db = freshDatabase(slug);
        String topic = "bench-" + slug;
        kafka.createTopic(topic, config.partitions());
        OutboxLoad load = new OutboxLoad(db, config.aggregates());
        Outcome.Drain drain;
        Outcome.Steady steady = null;
        Outcome.Saturation saturation = null;
        Outcome.Saturation stress = null;
        List<Outcome.LatencyPoint> curve = List.of();
        double quietCpu = Double.NaN;
        OptionalLong rss;
        String name;
        try (Receiver rx = new Receiver(kafka.bootstrapServers(), topic, config.partitions())) {
            try (Contender contender = factory.create(db, topic)) {
                name = contender.name();
                LOG.info("[{}] starting", name);
                contender.start();
                long warmup = cap == null ? config.warmup() : Math.min(config.warmup(), CAPPED_WARMUP);
                load.writeRows(warmup, role == Role.FLOOR ? 1 : config.fillThreads());
                require(rx.awaitDistinct(load.committed(), WAIT), name + " did not relay the warm-up events");
                contender.pause();
                long insertCpu0 = load.writerDbCpuNanos();
                load.writeRows(config.backlog(), config.fillThreads());
                long insertCpu = load.writerDbCpuNanos() - insertCpu0;
                LOG.info("[{}] backlog of {} written; draining", name, config.backlog());
                long resumed = System.nanoTime();
                contender.resume();
                drain = drain(rx, load, warmup, resumed, cap, name, insertCpu);
                LOG.info("[{}] drained {} events in {} s: {} events/s", name, drain.events(),
                        String.format("%.2f", drain.seconds()), Math.round(drain.rate()));
                Costing costing = new Costing(db, contender.pid(), marksRows(slug, role));
                if (role != Role.BASELINE) {
                    curve = latencyCurve(rx, load, name, drain.rate(), costing);
                    quietCpu = lastQuietCpu;
                } else if (cap == null) {
                    curve = List.of(latencyPoint(rx, load, name, COST_RATE, COST_LABEL, LATENCY_TX_ROWS, costing));
                }
                if (role == Role.RELAY) {
                    double rate = config.steadyRate() > 0 ? config.steadyRate() : insertRate / 2;
                    steady = steady(rx, load, rate, name, db, contender.pid());
                    saturation = saturation(rx, load, name, config.saturation(), config.writers());
                    stress = saturation(rx, load, name, config.stress(), config.fillThreads());
                }
                rss = contender.peakRssBytes();
            }
            Outcome.Verdict verdict = verdict(db, rx, load, cap != null);
            LOG.info("[{}] verdict {}", name, verdict);
            return new Outcome(name, drain, steady, saturation, stress, curve, rss, verdict,
                    MachineNotes.loadAverage1(), quietCpu);
        } finally {
            db.drop();
        }
    }

    private Outcome.Drain drain(Receiver rx, OutboxLoad load, long before, long resumed, Duration cap, String name,
                                long insertCpu) throws InterruptedException {
        if (cap != null) {
            boolean done = rx.awaitDistinct(load.committed(), cap);
            long now = System.nanoTime();
            long events = rx.distinct() - before;
            double seconds = (done ? rx.lastNewNanos() - resumed : now - resumed) / 1e9;
            return new Outcome.Drain(events, seconds, !done, insertCpu, config.backlog());
        }
        require(rx.awaitDistinct(load.committed(), WAIT), name + " did not drain the backlog within " + WAIT);
        return new Outcome.Drain(config.backlog(), (rx.lastNewNanos() - resumed) / 1e9, false, insertCpu,
                config.backlog());
    }

    /**
     * Where a contender's CPU is measured at the cost point: its process, its database sessions, and whether to
     * wait for its acknowledgements in the table.
     */
    private record Costing(TestDatabase db, OptionalLong pid, boolean marksRows) {
    }

    /** Whether a contender acknowledges in the outbox table (marks or deletes rows) after Kafka acknowledged. */
    private static boolean marksRows(String slug, Role role) {
        return role == Role.RELAY || slug.equals("batched") || slug.equals("naive");
    }

    /**
     * Waits until no unsent row is left: a contender acknowledges a batch in the table after the consumer may
     * already have read it, and that work belongs to the cost of the events just measured.
     */
    private static void awaitSettled(TestDatabase db, String name) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        try (Connection c = db.connect(); Statement st = c.createStatement()) {
            while (System.nanoTime() < deadline) {
                try (ResultSet rs = st.executeQuery("SELECT EXISTS (SELECT 1 FROM outbox WHERE sent_at IS NULL"
                        + " AND dead_lettered_at IS NULL)")) {
                    rs.next();
                    if (!rs.getBoolean(1)) {
                        return;
                    }
                }
                Thread.sleep(10);
            }
        }
        LOG.warn("[{}] rows still unsent after 30 s; its CPU figure misses their acknowledgement", name);
    }

    /** The contender JVM's CPU (% of one core) during the last quiet spell, NaN when unknown. */
    private double lastQuietCpu = Double.NaN;

    /**
     * The latency curve the users feel: one writer committing 10-row transactions at fixed loads, from idle (one
     * transaction a second) to 5,000 events/s (where the cost is measured), then 100-row transactions at half the
     * contender's drain rate, then 1,000/s again after a quiet spell; each for {@link BenchConfig#latencyPhase()},
     * the contender caught up before each point.
     */
    private List<Outcome.LatencyPoint> latencyCurve(Receiver rx, OutboxLoad load, String name, double drainRate,
                                                    Costing costing)
            throws InterruptedException, SQLException {
        List<Outcome.LatencyPoint> points = new ArrayList<>();
        for (double rate : LATENCY_RATES) {
            String label = rate == LATENCY_RATES[0] ? "idle" : Math.round(rate) + "/s";
            points.add(latencyPoint(rx, load, name, rate, label, LATENCY_TX_ROWS,
                    label.equals(COST_LABEL) ? costing : null));
        }
        // Half of what this contender drained in this run, from the one writer in 100-row transactions (as I is
        // measured): the load a user would run it at with room to spare.
        points.add(latencyPoint(rx, load, name, drainRate / 2, HALF_DRAIN, OutboxLoad.TX_ROWS, null));
        // The same load again after nothing was written for a while: does the relay wake as fast as it runs?
        require(rx.awaitDistinct(load.committed(), WAIT), name + " did not catch up before the quiet spell");
        OptionalLong pid = costing.pid();
        long cpuBefore = pid.isPresent() ? CpuMeter.cpuNanos(pid.getAsLong()) : 0;
        long quietStart = System.nanoTime();
        Thread.sleep(config.quietSpell().toMillis());
        if (pid.isPresent()) {
            lastQuietCpu = 100.0 * (CpuMeter.cpuNanos(pid.getAsLong()) - cpuBefore) / (System.nanoTime() - quietStart);
            LOG.info("[{}] JVM CPU while quiet: {} % of a core", name, String.format("%.2f", lastQuietCpu));
        }
        points.add(latencyPoint(rx, load, name, LATENCY_RATES[1],
                Math.round(LATENCY_RATES[1]) + "/s-after-" + config.quietSpell().toSeconds() + "s-quiet",
                LATENCY_TX_ROWS, null));
        return points;
    }

    private Outcome.LatencyPoint latencyPoint(Receiver rx, OutboxLoad load, String name, double rate, String label,
                                              int txRows, Costing costing) throws InterruptedException, SQLException {
        require(rx.awaitDistinct(load.committed(), WAIT), name + " did not catch up before the " + label
                + " latency phase");
        if (costing != null && costing.marksRows()) {
            awaitSettled(costing.db(), name);
        }
        CpuMeter meter = costing != null && costing.pid().isPresent()
                ? CpuMeter.start(costing.db(), costing.pid(), kafka.pid()) : null;
        long first = load.committed();
        long elapsed = load.writeFor(config.latencyPhase(), rate, 1, txRows);
        long end = load.committed();
        require(rx.awaitDistinct(end, WAIT), name + " did not deliver the " + label + " latency phase");
        CpuMeter.Split cpu = null;
        if (meter != null) {
            if (costing.marksRows()) {
                awaitSettled(costing.db(), name); // its last acknowledgements are work for these events
            }
            cpu = meter.stop();
        }
        long[] latencies = latencies(rx, load, first, end);
        int n = latencies.length;
        Outcome.LatencyPoint p = new Outcome.LatencyPoint(label, rate, (end - first) * 1e9 / elapsed, n,
                pct(latencies, n, 0.50), pct(latencies, n, 0.99), n == 0 ? 0 : latencies[n - 1] / 1e6, cpu);
        LOG.info("[{}] latency {}: p50 {} ms, p99 {} ms, max {} ms ({} events){}", name, label,
                Math.round(p.p50Ms()), Math.round(p.p99Ms()), Math.round(p.maxMs()), n, cpu == null ? ""
                        : String.format(java.util.Locale.ROOT, "; CPU per event: JVM %.1f µs, database sessions %.1f µs",
                        p.jvmMicros(), p.dbMicros()));
        return p;
    }

    /** Sorted end-to-end latencies (ns) of the events with bench sequence numbers in [first, end) received. */
    private static long[] latencies(Receiver rx, OutboxLoad load, long first, long end) {
        long[] latencies = new long[(int) (end - first)];
        int n = 0;
        for (long seq = first; seq < end; seq++) {
            long received = rx.firstReceivedNanos(seq);
            if (received != 0) {
                latencies[n++] = received - load.commitNanos(seq);
            }
        }
        long[] sorted = Arrays.copyOf(latencies, n);
        Arrays.sort(sorted);
        return sorted;
    }

    private Outcome.Steady steady(Receiver rx, OutboxLoad load, double rate, String name, TestDatabase db,
                                  OptionalLong relayPid) throws InterruptedException, SQLException {
        LOG.info("[{}] steady state at {} rows/s for {} s", name, Math.round(rate), config.steady().toSeconds());
        long first = load.committed();
        AtomicLong maxBacklog = new AtomicLong();
        Thread sampler = backlogSampler(rx, load, maxBacklog);
        CpuMeter cpu = CpuMeter.start(db, relayPid, kafka.pid());
        long elapsed = load.writeFor(config.steady(), rate, config.writers());
        long end = load.committed();
        boolean caughtUp = rx.awaitDistinct(end, Duration.ofSeconds(60));
        CpuMeter.Split split = cpu.stop();
        LOG.info("[{}] CPU seconds in {} s: relay JVM {}, relay's database sessions {}, writers' sessions {},"
                + " bench JVM and broker {}, machine {}", name, String.format("%.1f", split.wallSeconds()),
                String.format("%.1f", split.relayJvm()), String.format("%.1f", split.relayDb()),
                String.format("%.1f", split.writersDb()), String.format("%.1f", split.benchJvm()),
                String.format("%.1f", split.machine()));
        sampler.interrupt();
        sampler.join();
        long[] latencies = latencies(rx, load, first, end);
        int n = latencies.length;
        return new Outcome.Steady(rate, (end - first) * 1e9 / elapsed, end - first, pct(latencies, n, 0.50),
                pct(latencies, n, 0.99), pct(latencies, n, 0.999), n == 0 ? 0 : latencies[n - 1] / 1e6,
                maxBacklog.get(), caughtUp, split);
    }

    private Outcome.Saturation saturation(Receiver rx, OutboxLoad load, String name, Duration duration, int writers)
            throws InterruptedException {
        LOG.info("[{}] {} writer(s) flat out for {} s", name, writers, duration.toSeconds());
        long written0 = load.committed();
        long delivered0 = rx.distinct();
        long elapsed = load.writeFor(duration, 0, writers);
        long delivered1 = rx.distinct();
        long written1 = load.committed();
        long t = System.nanoTime();
        require(rx.awaitDistinct(written1, WAIT), name + " did not catch up after the full-load phase");
        double catchUp = (Math.max(rx.lastNewNanos(), t) - t) / 1e9;
        return new Outcome.Saturation((written1 - written0) * 1e9 / elapsed, (delivered1 - delivered0) * 1e9 / elapsed,
                written1 - delivered1, catchUp);
    }

    private static Thread backlogSampler(Receiver rx, OutboxLoad load, AtomicLong max) {
        Thread t = new Thread(() -> {
            try {
                while (true) {
                    max.accumulateAndGet(load.committed() - rx.distinct(), Math::max);
                    Thread.sleep(250);
                }
            } catch (InterruptedException e) {
                // done
            }
        }, "bench-backlog-sampler");
        t.setDaemon(true);
        t.start();
        return t;
    }

    private static double pct(long[] sorted, int n, double q) {
        if (n == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(q * n) - 1;
        return sorted[Math.max(0, Math.min(n - 1, index))] / 1e6;
    }

    /**
     * Judges delivery. Expected are all rows written, or, for a contender stopped by its time cap, the rows it
     * marked sent: a row still unsent in the table is late, not lost.
     */
    private Outcome.Verdict verdict(TestDatabase db, Receiver rx, OutboxLoad load, boolean capped) throws Exception {
        List<String> expected = new ArrayList<>();
        if (capped) {
            try (Connection c = db.connect(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT (payload->>'" + Payloads.SEQ_FIELD + "')::bigint FROM outbox"
                         + " WHERE sent_at IS NOT NULL ORDER BY 1")) {
                while (rs.next()) {
                    expected.add(Long.toString(rs.getLong(1)));
                }
            }
        } else {
            for (long seq = 0; seq < load.committed(); seq++) {
                expected.add(Long.toString(seq));
            }
        }
        // What was acknowledged is in the topic; give the consumer time to read it all.
        rx.awaitDistinct(expected.size(), Duration.ofSeconds(30));
        DeliveryReport report = DeliveryReport.of(rx.records(), expected);
        return new Outcome.Verdict(expected.size(), report.lostIds().size(), report.duplicateCount(),
                report.orderViolations().size(), report.keysOnSeveralPartitions().size(),
                report.unexpectedIds().size(), rx.unidentified());
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalStateException(message);
        }
    }
}
