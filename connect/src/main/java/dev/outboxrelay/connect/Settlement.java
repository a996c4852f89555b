package dev.outboxrelay.connect;

import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import dev.outboxrelay.core.delivery.KeyParking;
import dev.outboxrelay.core.delivery.RowStore;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a task makes of Connect's reports, with relay-core's parts: rows Kafka acknowledged are marked (or deleted)
 * through the {@link RowStore}; a row Connect did not deliver is charged an attempt and its key parked for a retry
 * ({@link KeyParking}), dead-lettered at {@code max-attempts}. Only the task thread calls it.
 */
final class Settlement {

    private static final Logger LOG = LoggerFactory.getLogger(Settlement.class);
    private static final String[] NO_KEYS = new String[0];
    static final String NOT_DELIVERED = "not delivered by Kafka Connect: a send or conversion failure that"
            + " errors.tolerance=all skipped (errors.log.enable=true logs why)";

    private final InFlight inFlight;
    private final KeyParking parking;
    private final RowStore rows;
    private final int maxAttempts;

    Settlement(InFlight inFlight, KeyParking parking, RowStore rows, int maxAttempts) {
        this.inFlight = inFlight;
        this.parking = parking;
        this.rows = rows;
        this.maxAttempts = maxAttempts;
    }

    /**
     * Settles what Connect reported since the last call, in seq order: a delivered row is marked unless its key is
     * parked (an earlier row of the key failed: the later ones stay unsent and are published again after it, in
     * order); an undelivered row is charged an attempt and parks its key.
     */
    void settle() throws InterruptedException {
        List<InFlight.Settled> outcomes = inFlight.takeOutcomes();
        if (outcomes.isEmpty()) {
            return;
        }
        List<UUID> acked = new ArrayList<>();
        List<Failure> failures = new ArrayList<>();
        for (InFlight.Settled s : outcomes) {
            if (!s.delivered()) {
                failures.add(new Failure(s.id(), NOT_DELIVERED));
                parking.park(s.key(), KeyParking.Reason.ROW_RETRY, "not delivered");
            } else if (!parking.isParked(s.key())) {
                acked.add(s.id());
            }
        }
        logDeadLetters(rows.record(acked, failures, maxAttempts), failures);
    }

    /** Rows that fail the same way every time (malformed): all their attempts at once, so they are dead letters. */
    void deadLetter(List<Failure> failures) throws InterruptedException {
        if (failures.isEmpty()) {
            return;
        }
        List<Failure> all = new ArrayList<>(failures.size() * maxAttempts);
        for (Failure f : failures) {
            for (int a = 0; a < maxAttempts; a++) {
                all.add(f);
            }
        }
        logDeadLetters(rows.record(List.of(), all, maxAttempts), failures);
    }

    /** The keys the next read leaves out; due keys are released, and their rows are read again in seq order. */
    String[] parkedKeys() {
        for (KeyParking.Hold hold : parking.due()) {
            parking.releaseIfUnchanged(hold.key(), hold.parkedEvents());
        }
        return parking.size() == 0 ? NO_KEYS : parking.keys().toArray(NO_KEYS);
    }

    private void logDeadLetters(Collection<UUID> dead, List<Failure> failures) {
        Set<UUID> logged = new HashSet<>();
        for (Failure f : failures) {
            if (dead.contains(f.id()) && logged.add(f.id())) {
                LOG.warn("Event {} was dead-lettered after {} attempt(s): {}", f.id(), maxAttempts, f.reason());
            }
        }
    }
}
