package dev.outboxrelay.demo;

import dev.outboxrelay.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Plays the application: inserts outbox rows for random aggregates in small transactions at a steady rate,
 * with plain SQL on the contract columns. One thread and one connection, so commit order is write order and
 * {@link #idsInOrder()} is the per-key order the relay must keep.
 */
final class EventWriter {

    /** Told right after each commit, with the ids of the transaction. */
    interface CommitListener {
        void committed(List<String> ids, long commitNanos);
    }

    private static final String INSERT = "INSERT INTO public.outbox"
            + " (id, aggregate_type, aggregate_id, event_type, payload) VALUES (?, ?, ?, ?, ?::jsonb)";

    private final TestDatabase db;
    private final int events;
    private final int rate;
    private final int keys;
    private final CommitListener listener;
    private final List<String> ids = Collections.synchronizedList(new ArrayList<>());
    private final AtomicLong written = new AtomicLong();
    private final Thread thread = new Thread(this::write, "demo-writer");
    private volatile boolean done;
    private volatile Exception failure;

    EventWriter(TestDatabase db, int events, int rate, int keys, CommitListener listener) {
        this.db = db;
        this.events = events;
        this.rate = rate;
        this.keys = keys;
        this.listener = listener;
    }

    void start() {
        thread.start();
    }

    void join() throws InterruptedException {
        thread.join();
    }

    long written() {
        return written.get();
    }

    boolean done() {
        return done;
    }

    Exception failure() {
        return failure;
    }

    /** Every id written, in commit order. */
    List<String> idsInOrder() {
        synchronized (ids) {
            return List.copyOf(ids);
        }
    }

    private void write() {
        // About 100 transactions a second, each a few events of different aggregates, like a busy service.
        int perTransaction = Math.max(1, Math.min(20, rate / 100));
        int[] versions = new int[keys];
        Random random = new Random(42);
        try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement(INSERT)) {
            c.setAutoCommit(false);
            long start = System.nanoTime();
            int i = 0;
            while (i < events) {
                sleepUntil(start + (long) (i * 1e9 / rate));
                int n = Math.min(perTransaction, events - i);
                List<String> tx = new ArrayList<>(n);
                for (int j = 0; j < n; j++) {
                    int key = random.nextInt(keys);
                    int version = ++versions[key];
                    UUID id = UUID.randomUUID();
                    ps.setObject(1, id);
                    ps.setString(2, Demo.AGGREGATE_TYPE);
                    ps.setString(3, "order-" + key);
                    ps.setString(4, version == 1 ? "OrderCreated" : "OrderUpdated");
                    ps.setString(5, "{\"orderId\": \"order-" + key + "\", \"version\": " + version
                            + ", \"amountCents\": " + random.nextInt(100_000) + "}");
                    ps.addBatch();
                    tx.add(id.toString());
                }
                ps.executeBatch();
                c.commit();
                listener.committed(tx, System.nanoTime());
                ids.addAll(tx);
                written.addAndGet(n);
                i += n;
            }
        } catch (Exception e) {
            failure = e;
        } finally {
            done = true;
        }
    }

    private static void sleepUntil(long nanos) throws InterruptedException {
        long wait = nanos - System.nanoTime();
        if (wait > 0) {
            TimeUnit.NANOSECONDS.sleep(wait);
        }
    }
}
