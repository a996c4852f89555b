package dev.outboxrelay.bench;

import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * A {@code System.nanoTime()} per event sequence number (0 = not yet), in lazily allocated chunks so that a run
 * of a million events needs no up-front sizing. Thread-safe: distinct sequence numbers are written by distinct
 * threads, and readers only look at numbers whose writer has finished (after a join or a received record).
 */
final class SeqTimes {

    private static final int CHUNK_BITS = 16;
    private static final int CHUNK = 1 << CHUNK_BITS;
    private static final int MAX_CHUNKS = 1 << 12; // 268 M events

    private final AtomicReferenceArray<long[]> chunks = new AtomicReferenceArray<>(MAX_CHUNKS);

    void set(long seq, long nanos) {
        chunk(seq)[(int) (seq & (CHUNK - 1))] = nanos;
    }

    /** Sets {@code nanos} only if nothing was set; returns whether it did. */
    boolean setFirst(long seq, long nanos) {
        long[] c = chunk(seq);
        int i = (int) (seq & (CHUNK - 1));
        if (c[i] != 0) {
            return false;
        }
        c[i] = nanos;
        return true;
    }

    long get(long seq) {
        long[] c = chunks.get((int) (seq >>> CHUNK_BITS));
        return c == null ? 0 : c[(int) (seq & (CHUNK - 1))];
    }

    private long[] chunk(long seq) {
        int index = (int) (seq >>> CHUNK_BITS);
        long[] c = chunks.get(index);
        if (c == null) {
            chunks.compareAndSet(index, null, new long[CHUNK]);
            c = chunks.get(index);
        }
        return c;
    }
}
