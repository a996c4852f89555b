package dev.outboxrelay.core.delivery;

import java.util.List;
import java.util.Map;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;

/**
 * The keys whose events are held back, one at a time, so that one bad row, key or topic never holds back the
 * stream. A held key is <em>parked</em>: its events are left unsent in the outbox table (where every event is a
 * row) and count as settled for the source's position, and a drainer publishes them later from the table in
 * {@code seq} order, once the hold is due.
 *
 * <p>The hand-off between the stream and the drainer: every event the stream parks bumps the key's
 * {@link Hold#parkedEvents()} counter. The drainer reads that counter before it looks for the key's unsent rows,
 * and releases the key only with {@link #releaseIfUnchanged} — so an event parked after the drainer's last look
 * keeps the key parked, and it is found by the next look instead of being left in the table unseen.
 *
 * <p>Thread-safe: the stream, the settling thread and the drainer use one instance.
 */
public interface KeyParking {

    /** Why a key is parked; decides when the drainer looks at it again. */
    enum Reason {
        /** A row of the key failed through its own fault and waits for its next attempt (with backoff). */
        ROW_RETRY,
        /** A row of the key is routed to a topic that is unusable now; no attempts are counted. */
        TOPIC,
        /** A row of the key is dead-lettered and {@code --on-poison block}: waits for an operator. */
        DEAD_LETTER,
        /**
         * A record of the key may still be rejected by the broker (larger than its topic takes): the later
         * events wait until it is answered, so they cannot overtake it.
         */
        AT_RISK
    }

    /**
     * One parked key.
     *
     * @param key          the record key ({@code aggregate_id})
     * @param reason       why it is parked
     * @param detail       for logs and status: the topic, or the failure; never payload
     * @param dueNanos     {@link System#nanoTime()} from which the drainer looks at it again
     * @param parkedEvents events parked so far, never decreasing while the key stays parked
     * @param retries      how often the key was parked for {@link Reason#ROW_RETRY} in a row (backoff grows)
     */
    record Hold(String key, Reason reason, String detail, long dueNanos, long parkedEvents, int retries) {
    }

    /** An empty parking on the system clock. */
    static KeyParking create() {
        return create(keys -> { });
    }

    /** An empty parking on the system clock that tells {@code parkedKeys} how many keys it holds when that changes. */
    static KeyParking create(IntConsumer parkedKeys) {
        return new ConcurrentKeyParking(System::nanoTime, parkedKeys);
    }

    /** An empty parking on the given {@code System.nanoTime()}-like clock, for tests. */
    static KeyParking create(LongSupplier nanoClock) {
        return new ConcurrentKeyParking(nanoClock, keys -> { });
    }

    /**
     * The stream's question for each event before it is sent: true when {@code key} is parked, and then the
     * event counts as parked (left in the table for the drainer).
     */
    boolean parkIfHeld(String key);

    /**
     * Parks {@code key} (or changes why), counting one parked event. For {@link Reason#ROW_RETRY} the key is
     * due after a backoff that grows with each consecutive retry; {@link Reason#TOPIC} after
     * {@code TopicLimits.RETRY_UNUSABLE_SECONDS}; {@link Reason#DEAD_LETTER} is looked at every two seconds;
     * {@link Reason#AT_RISK} once the risky record is answered ({@link #dueNow}), or after a minute at the latest.
     */
    void park(String key, Reason reason, String detail);

    /** How long until {@code key}'s hold for a {@link Reason#ROW_RETRY} ends; null when it is not held for one. */
    java.time.Duration retryDueIn(String key);

    /**
     * Parks {@code key} for {@link Reason#ROW_RETRY} as the table says a previous instance held it ({@code retry_at},
     * {@code attempts}): due in {@code dueIn}, its backoff going on from {@code retries}. A key parked already keeps
     * its hold.
     */
    void restoreRetry(String key, String detail, java.time.Duration dueIn, int retries);

    /**
     * {@link #park} for {@link Reason#ROW_RETRY} after a failure charged to a row that has {@code attempts} now: the
     * backoff is that of the row's attempts, so it grows even where the key was released between two retries (poll
     * releases a due key before it fetches it again).
     */
    void parkForRetry(String key, String detail, int attempts);

    /** True when {@code key} is parked now. */
    boolean isParked(String key);

    /** Why {@code key} is parked now, or null when it is not. */
    Reason reasonOf(String key);

    /** The parked keys due for a look by the drainer now, oldest due first. */
    List<Hold> due();

    /**
     * Makes a parked key due now without counting an event: the record that put it {@link Reason#AT_RISK} was
     * acknowledged, so the drainer may publish what waits behind it.
     */
    void dueNow(String key);

    /** Puts a key the drainer looked at back to wait for {@code reason}'s interval, counting no event. */
    void recheckLater(String key, Reason reason, String detail);

    /**
     * Releases {@code key} if no event was parked since the drainer read {@code parkedEvents}; returns whether it
     * did. After a release the stream sends the key's events again.
     */
    boolean releaseIfUnchanged(String key, long parkedEvents);

    /** How many keys are parked, per reason (for metrics and status). */
    Map<Reason, Integer> countByReason();

    /** How many keys are parked. */
    int size();

    /** The parked keys now, a snapshot. */
    List<String> keys();
}
