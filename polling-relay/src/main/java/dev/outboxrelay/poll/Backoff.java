package dev.outboxrelay.poll;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;

/** Capped exponential backoff with full jitter, so a fleet of relays does not retry in lock step. */
final class Backoff {

    private static final long INITIAL_MILLIS = 100;

    private final long maxMillis;
    private int failures;

    Backoff(Duration max) {
        this.maxMillis = Math.max(INITIAL_MILLIS, max.toMillis());
    }

    /** The pause before the next retry; grows with every call until {@link #reset()}. */
    long nextDelayMillis() {
        long ceiling = Math.min(maxMillis, INITIAL_MILLIS << Math.min(failures, 20));
        failures++;
        return ceiling / 2 + ThreadLocalRandom.current().nextLong(ceiling / 2 + 1);
    }

    boolean isBackingOff() {
        return failures > 0;
    }

    void reset() {
        failures = 0;
    }
}
