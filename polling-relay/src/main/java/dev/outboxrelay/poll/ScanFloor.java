package dev.outboxrelay.poll;

import java.time.Duration;

/**
 * Where the next fetch starts in seq order. Every sent (or deleted) row leaves a dead entry in the unsent-rows
 * index until VACUUM removes it, and a fetch from the start of the index walks over all of them: in mark mode
 * under a steady write load a fetch grew from 3 ms to 40 ms within a minute. So most fetches start at a floor,
 * the lowest seq that the previous fetch found unsent or that is still in flight.
 *
 * <p>A transaction that took its seqs earlier and commits later can land below the floor. Such rows are never
 * skipped: at least every {@code fullScanInterval} (the poll interval) a fetch starts from the beginning, and
 * that full scan also lowers the floor to them. The same full scan finds rows the fetch query filters out for a
 * while (later events of a key behind a dead letter, until an operator resolves it).
 */
final class ScanFloor {

    /** A fetch from here reads the whole index. */
    static final long START = Long.MIN_VALUE;

    private final long fullScanNanos;
    private long floor = START;
    private long lastFullScan;
    private boolean scannedFully;

    ScanFloor(Duration fullScanInterval) {
        this.fullScanNanos = Math.max(0, fullScanInterval.toNanos());
    }

    /** The seq the next fetch starts from: {@link #START} for the first fetch and whenever a full scan is due. */
    long from(long nowNanos) {
        if (!scannedFully || nowNanos - lastFullScan >= fullScanNanos) {
            scannedFully = true;
            lastFullScan = nowNanos;
            return START;
        }
        return floor;
    }

    /**
     * Records what a fetch saw. Every visible unsent row at or above the fetch's start is either in flight or at
     * or above the lowest row it returned, so the lower of the two is the next floor. With neither, the floor
     * stays: it never rises past a row nobody has seen.
     *
     * @param lowestFetched the lowest seq the fetch returned, {@link Long#MAX_VALUE} if none
     * @param lowestInFlight the lowest seq of the batches not yet marked, {@link Long#MAX_VALUE} if none
     */
    void fetched(long lowestFetched, long lowestInFlight) {
        long lowest = Math.min(lowestFetched, lowestInFlight);
        if (lowest != Long.MAX_VALUE) {
            floor = lowest;
        }
    }

    long floor() {
        return floor;
    }
}
