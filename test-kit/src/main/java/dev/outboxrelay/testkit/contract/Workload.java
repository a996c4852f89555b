package dev.outboxrelay.testkit.contract;

import dev.outboxrelay.testkit.Pacing;
import dev.outboxrelay.testkit.contract.OutboxWriter.Row;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Concurrent writers, as an application under load: each key is owned by one writer thread, which defines
 * the key's order; every thread commits its rows in transactions of 1 to 20 rows.
 */
public final class Workload {

    private final ExecutorService threads;
    private final List<Future<?>> futures = new ArrayList<>();
    private final List<List<String>> perKey;
    private final List<String> committed = Collections.synchronizedList(new ArrayList<>());
    /** Checked before each commit: while false, the writers wait (e.g. for the relay to catch up). */
    private volatile java.util.function.BooleanSupplier mayWrite = () -> true;

    private Workload(int keys, int threadCount) {
        this.threads = Executors.newFixedThreadPool(threadCount);
        this.perKey = new ArrayList<>();
        for (int k = 0; k < keys; k++) {
            perKey.add(Collections.synchronizedList(new ArrayList<>()));
        }
    }

    /**
     * Starts writing {@code eventsPerKey} events for each of {@code keys} keys with {@code threadCount}
     * threads, pausing {@code pauseMillis} after each commit.
     */
    public static Workload start(OutboxWriter writer, String aggregateType, int keys, int eventsPerKey,
                                 int threadCount, long pauseMillis) {
        return startThrottled(writer, aggregateType, keys, eventsPerKey, threadCount, pauseMillis, () -> true);
    }

    /**
     * As {@link #start}, but each writer waits before a commit while {@code mayWrite} is false: a writer that must not
     * run ahead of the relay by more than a bound, so that "while events are written" holds however slowly the
     * relay runs.
     */
    public static Workload startThrottled(OutboxWriter writer, String aggregateType, int keys, int eventsPerKey,
                                          int threadCount, long pauseMillis, java.util.function.BooleanSupplier mayWrite) {
        Workload w = new Workload(keys, threadCount);
        w.mayWrite = mayWrite;
        for (int t = 0; t < threadCount; t++) {
            int thread = t;
            w.futures.add(w.threads.submit(() -> {
                w.run(writer, aggregateType, keys, eventsPerKey, threadCount, thread, pauseMillis);
                return null;
            }));
        }
        w.threads.shutdown();
        return w;
    }

    /** Writes everything and returns the ids in per-key order. */
    public static List<String> write(OutboxWriter writer, String aggregateType, int keys, int eventsPerKey,
                                     int threadCount, long pauseMillis) throws InterruptedException {
        return start(writer, aggregateType, keys, eventsPerKey, threadCount, pauseMillis).join();
    }

    private void run(OutboxWriter writer, String type, int keys, int perKeyCount, int threadCount, int thread,
                     long pauseMillis) throws InterruptedException, SQLException {
        try (Connection c = writer.database().connect()) {
            c.setAutoCommit(false);
            run(writer, c, type, keys, perKeyCount, threadCount, thread, pauseMillis);
        }
    }

    private void run(OutboxWriter writer, Connection c, String type, int keys, int perKeyCount, int threadCount,
                     int thread, long pauseMillis) throws InterruptedException, SQLException {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        List<Row> tx = new ArrayList<>();
        int txSize = 1 + random.nextInt(20);
        for (int n = 0; n < perKeyCount; n++) {
            for (int k = thread; k < keys; k += threadCount) {
                tx.add(Row.of(type, "key-" + k, n));
                if (tx.size() >= txSize) {
                    commit(writer, c, tx);
                    txSize = 1 + random.nextInt(20);
                    if (pauseMillis > 0) {
                        Pacing.pause(pauseMillis);
                    }
                }
            }
        }
        if (!tx.isEmpty()) {
            commit(writer, c, tx);
        }
    }

    private void commit(OutboxWriter writer, Connection c, List<Row> tx) throws SQLException, InterruptedException {
        while (!mayWrite.getAsBoolean()) {
            Pacing.pause(10); // the test gates the writers; a writer may wait for minutes
        }
        List<String> ids = writer.insert(c, tx);
        c.commit();
        for (int i = 0; i < tx.size(); i++) {
            int key = Integer.parseInt(tx.get(i).aggregateId().substring("key-".length()));
            perKey.get(key).add(ids.get(i));
        }
        committed.addAll(ids);
        tx.clear();
    }

    /** True once every writer finished. */
    public boolean isDone() {
        return futures.stream().allMatch(Future::isDone);
    }

    /** Ids committed so far, in no particular order. */
    public List<String> committedSoFar() {
        synchronized (committed) {
            return new ArrayList<>(committed);
        }
    }

    /** How many rows have been committed so far. */
    public int committedCount() {
        return committed.size();
    }

    /** Waits for the writers and returns every id, each key's ids in that key's order. */
    public List<String> join() throws InterruptedException {
        for (Future<?> f : futures) {
            try {
                f.get();
            } catch (ExecutionException e) {
                throw new IllegalStateException("writer failed: " + e.getCause(), e.getCause());
            }
        }
        List<String> all = new ArrayList<>();
        perKey.forEach(all::addAll);
        return all;
    }
}
