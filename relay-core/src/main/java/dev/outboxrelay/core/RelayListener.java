package dev.outboxrelay.core;

import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

/**
 * Hooks for metrics and alerts, called by both sources. Every method has an empty default so a listener
 * implements only what it needs. Implementations must be fast and thread-safe and must not throw.
 */
public interface RelayListener {

    /** A listener that does nothing. */
    static RelayListener none() {
        return new RelayListener() { };
    }

    /** Kafka acknowledged one event published to {@code topic}; {@code createdAt} is when it was written. */
    default void published(String topic, Instant createdAt) {
    }

    /** A batch of {@code size} events was published and acknowledged in {@code elapsed}. */
    default void batchPublished(int size, Duration elapsed) {
    }

    /** One publish attempt failed; the row keeps waiting or is dead-lettered. The reason holds no payload. */
    default void publishFailed(UUID id, String reason) {
    }

    /** A row gave up after its last attempt and is kept as a dead letter. */
    default void deadLettered(UUID id, String reason) {
    }

    /**
     * How many keys are parked now: their events wait unsent in the table (topic unusable, a row waiting for its
     * retry, a dead letter with {@code --on-poison block}) while other keys flow. Called when the number changes.
     */
    default void parkedKeys(int keys) {
    }

    /**
     * The Kafka producer was closed after a failed record, so that nothing of its partition could overtake it, and a
     * new one took its place ({@code cause}: the failure that closed the old one; no payload in it).
     */
    default void producerRebuilt(Throwable cause) {
    }

    /**
     * After a failed record, {@code events} events of {@code keys} keys that had been handed to the producer and were
     * not acknowledged were sent again, in their order (duplicates possible, reordering never).
     */
    default void resentForOrder(int keys, int events) {
    }

    /** Exactly-once: a Kafka transaction ended: {@code committed}, or aborted (its records never visible). */
    default void transactionEnded(boolean committed) {
    }

    /** Exactly-once: another instance of this relay took the transactional id; this one stops publishing. */
    default void fenced() {
    }

    /** The source lost Kafka or the database and is retrying; cleared by {@link #recovered()}. */
    default void outage(String what, Throwable cause) {
    }

    /** The source works normally again after an {@link #outage}. */
    default void recovered() {
    }
}
