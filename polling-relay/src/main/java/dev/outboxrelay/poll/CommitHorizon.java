package dev.outboxrelay.poll;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps a floor below which no row is unsent or can still become so, so fetches start there instead of at the
 * beginning of the unsent-rows index. Marked rows leave dead entries in that index until VACUUM, which in mark
 * mode (sent rows stay in the table, so autovacuum's 20 % threshold is far away) comes rarely: every fetch
 * stepped over all of them, and at 20,000 rows/s the fetch session became the relay's largest CPU user.
 *
 * <p>Why the floor is safe: seqs come from the identity sequence in the order they are drawn (cache 1), and an
 * INSERT holds a RowExclusiveLock on the table (or on the partition it writes) from before it draws its seq
 * until its transaction ends. So after a fetch that saw seq V, the transactions holding such locks right after
 * it include every one that may still commit a seq at or below V. Once all of them ended, every seq at or below
 * V is final, and the floor can move to the lowest unsent seq (or V + 1). A live dead letter pins the floor, so
 * a row put back with {@code dead-letters retry} is never below it. Any doubt keeps the floor where it is: a
 * long transaction on the table holds it back, the floor restarts at 0 on every (re)connect and every
 * {@link #RESCAN_NANOS} (which also picks up rows an operator made unsent again by hand), and a sequence cache
 * above 1 turns the floor off.
 */
final class CommitHorizon {

    private static final Logger LOG = LoggerFactory.getLogger(CommitHorizon.class);
    /**
     * How often the horizon moves at most: a round (writers after a fetch, then the check and the lowest unsent
     * seq) is three small queries, which on every fetch cost a busy poller a few percent of its time. Whether
     * the writers ended is probed every tenth of that.
     */
    private static final long CHECK_NANOS = TimeUnit.MILLISECONDS.toNanos(100);
    private static final long RESCAN_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final OutboxQueries queries;
    private final boolean enabled;
    private final long checkNanos;
    private long floor;
    private long candidate = -1;
    private String[] writers;
    private long nextRound;
    private long nextProbe;
    private long nextRescan;

    private CommitHorizon(OutboxQueries queries, boolean enabled, long checkNanos) {
        this.queries = queries;
        this.enabled = enabled;
        this.checkNanos = checkNanos;
        this.nextRescan = System.nanoTime() + RESCAN_NANOS;
    }

    /** A horizon for the active poller's session; disabled (floor always 0) when seq order is not draw order. */
    static CommitHorizon open(Connection c, OutboxQueries queries) throws SQLException {
        return open(c, queries, CHECK_NANOS);
    }

    static CommitHorizon open(Connection c, OutboxQueries queries, long checkNanos) throws SQLException {
        long cache = queries.seqCache(c);
        if (cache != 1) {
            LOG.info("Fetches scan every unsent row from the start: {}", cache == 0
                    ? "seq is not an identity column" : "seq's sequence has CACHE " + cache + " (needs 1)");
        }
        return new CommitHorizon(queries, cache == 1, checkNanos);
    }

    /** No unsent live row, and no live dead letter, has a seq below this. */
    long floor() {
        return floor;
    }

    /** Records a fetch's result: its highest seq becomes the candidate when none is pending and it is time. */
    void fetched(Connection c, List<OutboxRow> rows) throws SQLException {
        long now = System.nanoTime();
        if (!enabled || candidate >= 0 || rows.isEmpty() || now - nextRound < 0) {
            return;
        }
        // Read after the fetch: anyone who drew a seq up to the highest fetched (the last: rows come in seq order)
        // held the lock then, and holds it until its transaction ends.
        writers = queries.writers(c);
        candidate = rows.get(rows.size() - 1).seq();
        nextProbe = now + checkNanos / 10;
    }

    /** Moves the floor when the pending candidate's writers have all ended. */
    void advance(Connection c) throws SQLException {
        if (!enabled) {
            return;
        }
        long now = System.nanoTime();
        if (now - nextRescan >= 0) {
            floor = 0;
            nextRescan = now + RESCAN_NANOS;
        }
        if (candidate < 0 || now - nextProbe < 0) {
            return;
        }
        if (writers.length > 0 && queries.stillWriting(c, writers)) {
            nextProbe = now + checkNanos / 10;
            return;
        }
        nextRound = now + checkNanos;
        long lowest = queries.lowestPending(c, floor);
        long next = lowest < 0 ? candidate + 1 : Math.min(lowest, candidate + 1);
        if (next > floor) {
            LOG.debug("Fetch floor {} -> {}", floor, next);
            floor = next;
        }
        candidate = -1;
        writers = null;
    }
}
