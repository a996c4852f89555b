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

    /** The source lost Kafka or the database and is retrying; cleared by {@link #recovered()}. */
    default void outage(String what, Throwable cause) {
    }

    /** The source works normally again after an {@link #outage}. */
    default void recovered() {
    }
}
