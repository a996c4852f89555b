package dev.outboxrelay.core.delivery;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Acknowledged rows that the acknowledgement could not see yet, to mark with the next ones.
 *
 * <p>PostgreSQL writes and flushes a transaction's commit record before it shows the transaction as committed to
 * other sessions. So the CDC stream can decode a row, Kafka can acknowledge its record, and the relay's
 * {@code UPDATE ... WHERE id = ANY(?)} can run in that gap, see no such row and change nothing. Under a busy CPU
 * (the committing backend descheduled) the gap lasts long enough to lose whole transactions' marks; nothing re-reads
 * those rows until a rescan, so they stayed unsent although delivered. Such ids are kept here and marked again with
 * every later acknowledgement (heartbeats included) until the database shows them, or for {@link #PATIENCE_NANOS}:
 * a row that never appears was deleted (e.g. inserted and deleted in one transaction) and needs no mark. Bounded
 * to {@link #MAX_IDS} ids, oldest dropped first, so a table that deletes every row costs at most that many index
 * probes per acknowledgement.
 */
final class NotYetVisible {

    static final long PATIENCE_NANOS = TimeUnit.SECONDS.toNanos(30);
    static final int MAX_IDS = 1_000;

    /** Id to the time it was first missed (System.nanoTime scale), oldest first. */
    private final Map<UUID, Long> since = new LinkedHashMap<>();

    boolean isEmpty() {
        return since.isEmpty();
    }

    int size() {
        return since.size();
    }

    /** {@code ids} and the ids still waiting to be seen (those missed longer ago than the patience dropped). */
    List<UUID> with(Collection<UUID> ids, long nowNanos) {
        for (Iterator<Long> it = since.values().iterator(); it.hasNext(); ) {
            if (nowNanos - it.next() > PATIENCE_NANOS) {
                it.remove();
            }
        }
        if (since.isEmpty()) {
            return ids instanceof List<UUID> list ? list : new ArrayList<>(ids);
        }
        java.util.Set<UUID> all = new java.util.LinkedHashSet<>(ids);
        all.addAll(since.keySet());
        return new ArrayList<>(all);
    }

    /**
     * After a mark of {@code marked} that changed fewer rows than it named: those of them the database showed
     * ({@code present}: marked now or sent before) are done, the others wait for the next mark.
     */
    void missed(Collection<UUID> marked, Set<UUID> present, long nowNanos) {
        for (UUID id : marked) {
            if (present.contains(id)) {
                since.remove(id);
            } else {
                since.putIfAbsent(id, nowNanos);
            }
        }
        for (Iterator<UUID> it = since.keySet().iterator(); since.size() > MAX_IDS && it.hasNext(); ) {
            it.next();
            it.remove();
        }
    }

    /** Every id of the last mark was changed: none waits any more. */
    void allSeen() {
        since.clear();
    }
}
