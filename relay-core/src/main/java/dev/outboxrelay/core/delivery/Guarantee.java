package dev.outboxrelay.core.delivery;

/** What a consumer may rely on ({@code --delivery}). */
public enum Guarantee {
    /** Every row at least once, in per-key order; consumers dedupe on the event id (the inbox). The default. */
    AT_LEAST_ONCE,
    /**
     * Every row exactly once for a {@code read_committed} consumer: Kafka transactions that carry the position
     * ({@link dev.outboxrelay.core.publish.ExactlyOnce}).
     */
    EXACTLY_ONCE
}
