package dev.outboxrelay.core.delivery;

import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.random.RandomGenerator;

/**
 * Capped exponential backoff with "equal jitter": the n-th delay is drawn uniformly from
 * {@code [c/2, c]} where {@code c = min(max, initial * 2^n)}. Half of it is fixed, so a retry never comes
 * immediately after a failure; the random half keeps a fleet of relays from retrying in lock step.
 * Not thread-safe: one instance per retrying loop.
 */
public final class Backoff {

    private final long initialMillis;
    private final long maxMillis;
    /** Null: {@link ThreadLocalRandom} of the calling thread. */
    private final RandomGenerator random;
    private int failures;

    private Backoff(Duration initial, Duration max, RandomGenerator random) {
        if (initial.isNegative() || initial.isZero()) {
            throw new IllegalArgumentException("initial backoff must be positive: " + initial);
        }
        this.initialMillis = initial.toMillis();
        this.maxMillis = Math.max(initialMillis, max.toMillis());
        this.random = random;
    }

    /** Starting at {@code initial}, doubling per failure up to {@code max}. */
    public static Backoff exponential(Duration initial, Duration max) {
        return new Backoff(initial, max, null);
    }

    /** The same with a given random source, for tests. */
    static Backoff exponential(Duration initial, Duration max, RandomGenerator random) {
        return new Backoff(initial, max, random);
    }

    /** The pause before the next retry; grows with every call until {@link #reset()}. */
    public long nextDelayMillis() {
        // ThreadLocalRandom must be asked for on the thread that uses it, not kept from the constructing one.
        long delay = delayMillis(initialMillis, maxMillis, failures, random == null ? ThreadLocalRandom.current() : random);
        failures++;
        return delay;
    }

    /** The delay after {@code failures} earlier failures (0 for the first retry), by the rule above. */
    static long delayMillis(long initialMillis, long maxMillis, int failures, RandomGenerator random) {
        long ceiling = Math.min(maxMillis, initialMillis << Math.min(Math.max(0, failures), 30));
        if (ceiling <= 0) {
            ceiling = maxMillis;
        }
        return ceiling / 2 + random.nextLong(ceiling - ceiling / 2 + 1);
    }

    /** True after a failure and before the next {@link #reset()}. */
    public boolean isBackingOff() {
        return failures > 0;
    }

    /** Called after a success: the next delay starts from the initial one again. */
    public void reset() {
        failures = 0;
    }
}
