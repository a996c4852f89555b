package dev.outboxrelay.connect;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The rows a task handed to Connect and has not settled yet, and the outcomes Connect reported for them. The task
 * thread adds rows and takes outcomes; Connect's producer threads report outcomes ({@link #outcome}).
 */
final class InFlight {

    private record Row(UUID id, String key, long bytes) {
    }

    /** A row Connect reported on: delivered (Kafka acknowledged it) or not. */
    record Settled(long seq, UUID id, String key, boolean delivered) {
    }

    /** In seq order of reading; guarded by this. */
    private final Map<Long, Row> rows = new LinkedHashMap<>();
    private final List<long[]> outcomes = new ArrayList<>();
    private long bytes;

    synchronized void add(long seq, UUID id, String key, long rowBytes) {
        rows.put(seq, new Row(id, key, rowBytes));
        bytes += rowBytes;
    }

    synchronized int size() {
        return rows.size();
    }

    synchronized long bytes() {
        return bytes;
    }

    /** The seqs in flight, to leave out of the next read. */
    synchronized long[] seqs() {
        long[] seqs = new long[rows.size()];
        int i = 0;
        for (Long seq : rows.keySet()) {
            seqs[i++] = seq;
        }
        return seqs;
    }

    /** The ids in flight, comma-separated. */
    synchronized String ids() {
        StringBuilder b = new StringBuilder(rows.size() * 37);
        for (Row r : rows.values()) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(r.id());
        }
        return b.toString();
    }

    /** Connect's report on one row; any thread. */
    synchronized void outcome(long seq, boolean delivered) {
        outcomes.add(new long[] {seq, delivered ? 1 : 0});
        notifyAll();
    }

    /** The outcomes reported since the last call, in seq order, their rows no longer in flight. */
    synchronized List<Settled> takeOutcomes() {
        if (outcomes.isEmpty()) {
            return List.of();
        }
        outcomes.sort((a, b) -> Long.compare(a[0], b[0]));
        List<Settled> settled = new ArrayList<>(outcomes.size());
        for (long[] o : outcomes) {
            Row r = rows.remove(o[0]);
            if (r != null) {
                bytes -= r.bytes();
                settled.add(new Settled(o[0], r.id(), r.key(), o[1] == 1));
            }
        }
        outcomes.clear();
        return settled;
    }

    /** Waits up to {@code millis} for an outcome; returns at once when one is waiting. */
    synchronized void awaitOutcome(long millis) throws InterruptedException {
        if (outcomes.isEmpty()) {
            wait(millis);
        }
    }
}
