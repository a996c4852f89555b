package dev.outboxrelay.bench;

import dev.outboxrelay.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The application side: writer threads inserting outbox rows in 100-row transactions, as fast as they can or
 * at a fixed rate. Each row's payload carries a sequence number; the time each transaction's commit returned is
 * kept per sequence number for end-to-end latency. Within one call the aggregates are split between the
 * threads, and calls do not overlap, so for one key the sequence order is the commit order, which lets the
 * consumer check per-key order.
 */
final class OutboxLoad {

    /** Rows per transaction, as in the issue: the writer's ceiling I is measured with 100-row transactions. */
    static final int TX_ROWS = 100;

    private final TestDatabase database;
    private final int aggregates;
    private final SeqTimes commitTimes = new SeqTimes();
    private final AtomicLong nextSeq = new AtomicLong();
    private final AtomicLong committed = new AtomicLong();
    private final AtomicLong writerDbNanos = new AtomicLong();

    OutboxLoad(TestDatabase database, int aggregates) {
        this.database = database;
        this.aggregates = aggregates;
    }

    /** Rows committed so far; their sequence numbers are exactly {@code 0 .. committed()-1} between runs. */
    long committed() {
        return committed.get();
    }

    /**
     * CPU time the writers' database sessions (the server processes behind their connections) spent so far, read
     * from the OS when each writer's connection closes; 0 where the server's processes cannot be read.
     */
    long writerDbCpuNanos() {
        return writerDbNanos.get();
    }

    /** When the commit of event {@code seq} returned ({@code System.nanoTime()}); 0 if unknown. */
    long commitNanos(long seq) {
        return commitTimes.get(seq);
    }

    /** Writes {@code rows} rows as fast as {@code threads} writers can; returns the elapsed nanoseconds. */
    long writeRows(long rows, int threads) {
        return run(rows, null, 0, threads);
    }

    /**
     * Writes for {@code duration} with {@code threads} writers, flat out when {@code rowsPerSecond <= 0};
     * returns the elapsed nanoseconds.
     */
    long writeFor(Duration duration, double rowsPerSecond, int threads) {
        return writeFor(duration, rowsPerSecond, threads, TX_ROWS);
    }

    /** The same in transactions of {@code txRows} rows (the latency curve writes 10-row transactions). */
    long writeFor(Duration duration, double rowsPerSecond, int threads, int txRows) {
        return run(Long.MAX_VALUE, duration, rowsPerSecond, threads, txRows);
    }

    private long run(long rows, Duration duration, double rowsPerSecond, int threads) {
        return run(rows, duration, rowsPerSecond, threads, TX_ROWS);
    }

    private long run(long rows, Duration duration, double rowsPerSecond, int threads, int txRows) {
        if (threads < 1 || aggregates % threads != 0) {
            throw new IllegalArgumentException("aggregates must split evenly between writer threads");
        }
        long start = System.nanoTime();
        long end = rows == Long.MAX_VALUE ? Long.MAX_VALUE : nextSeq.get() + rows;
        long deadline = duration == null ? Long.MAX_VALUE : start + duration.toNanos();
        // Each thread commits every `interval`, staggered, so that together they offer rowsPerSecond.
        long interval = rowsPerSecond <= 0 ? 0 : (long) (threads * txRows * 1e9 / rowsPerSecond);
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> new Thread(r, "bench-writer"));
        try {
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                long firstDue = start + interval * t / threads;
                futures.add(pool.submit(() -> {
                    writerLoop(thread, threads, end, deadline, firstDue, interval, txRows);
                    return null;
                }));
            }
            for (Future<?> f : futures) {
                f.get();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while writing", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("writer failed: " + e.getCause().getMessage(), e.getCause());
        } finally {
            pool.shutdownNow();
        }
        // Numbers handed out past `end` were never written: keep the sequence dense.
        nextSeq.set(committed.get());
        return System.nanoTime() - start;
    }

    /** The application's insert: the contract columns only, as a service writes them. */
    static final String INSERT = "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload)"
            + " VALUES (?, 'Order', ?, 'OrderPlaced', ?::jsonb)";

    /** Adds event {@code seq} of {@code aggregate} to an {@link #INSERT} batch. */
    static void addRow(PreparedStatement ps, long seq, String aggregate) throws SQLException {
        ps.setObject(1, UUID.randomUUID());
        ps.setString(2, aggregate);
        ps.setString(3, Payloads.json(seq, aggregate));
        ps.addBatch();
    }

    private void writerLoop(int thread, int threads, long end, long deadline, long firstDue, long interval,
                            int txRows) throws SQLException, InterruptedException {
        try (Connection c = database.connect();
             PreparedStatement ps = c.prepareStatement(INSERT)) {
            long backend = backendPid(c);
            java.util.Optional<Long> cpuAtStart = CpuMeter.sessionCpuNanos(backend);
            try {
                writeLoop(c, ps, thread, threads, end, deadline, firstDue, interval, txRows);
            } finally {
                java.util.Optional<Long> cpu = CpuMeter.sessionCpuNanos(backend);
                if (cpuAtStart.isPresent() && cpu.isPresent()) {
                    writerDbNanos.addAndGet(cpu.get() - cpuAtStart.get());
                }
            }
        }
    }

    private static long backendPid(Connection c) throws SQLException {
        try (java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery("SELECT pg_backend_pid()")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void writeLoop(Connection c, PreparedStatement ps, int thread, int threads, long end, long deadline,
                           long firstDue, long interval, int txRows) throws SQLException, InterruptedException {
        int owned = aggregates / threads;
        long k = 0;
        c.setAutoCommit(false);
        long due = firstDue;
        while (System.nanoTime() < deadline) {
            if (interval > 0) {
                long wait = due - System.nanoTime();
                if (wait > 0) {
                    if (System.nanoTime() + wait >= deadline) {
                        return;
                    }
                    Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
                }
                due += interval; // behind schedule: catch up without sleeping
            }
            long first = nextSeq.getAndAdd(txRows);
            if (first >= end) {
                return;
            }
            int n = (int) Math.min(txRows, end - first);
            for (int i = 0; i < n; i++) {
                addRow(ps, first + i, Payloads.aggregateId(thread + threads * (int) (k++ % owned)));
            }
            ps.executeBatch();
            c.commit();
            long now = System.nanoTime();
            for (int i = 0; i < n; i++) {
                commitTimes.set(first + i, now);
            }
            committed.addAndGet(n);
        }
    }
}
