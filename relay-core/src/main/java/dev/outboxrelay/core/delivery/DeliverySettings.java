package dev.outboxrelay.core.delivery;

import java.util.Objects;
import java.util.Optional;

/**
 * What the {@link DeliveryPipeline} needs from the validated configuration; the same in both modes.
 *
 * @param maxAttempts        attempts charged to a row (its own faults only) before it is a dead letter
 * @param onPoison           whether a dead letter holds back its key's later events
 * @param deadLetterTopic    where dead letters are copied before they are recorded, if set
 * @param maxUnsettledEvents events in flight at most (a crash's duplicates are bounded by it)
 * @param maxUnsettledBytes  estimated bytes of events in flight at most ({@link DeliveryPipeline.Item#bytes()}); a
 *                           batch is admitted when nothing is in flight, however large
 * @param threadName         the settling thread's name
 */
public record DeliverySettings(int maxAttempts, OnPoison onPoison, Optional<String> deadLetterTopic,
                               int maxUnsettledEvents, long maxUnsettledBytes, String threadName) {

    public DeliverySettings {
        if (maxAttempts < 1) {
            throw new IllegalArgumentException("maxAttempts must be at least 1: " + maxAttempts);
        }
        if (maxUnsettledEvents < 1) {
            throw new IllegalArgumentException("maxUnsettledEvents must be at least 1: " + maxUnsettledEvents);
        }
        if (maxUnsettledBytes < 1) {
            throw new IllegalArgumentException("maxUnsettledBytes must be at least 1: " + maxUnsettledBytes);
        }
        Objects.requireNonNull(onPoison, "onPoison");
        Objects.requireNonNull(deadLetterTopic, "deadLetterTopic");
        Objects.requireNonNull(threadName, "threadName");
    }
}
