package dev.outboxrelay.testkit;

import java.time.Duration;
import java.util.concurrent.Callable;

/**
 * Asserts that something holds <em>all through</em> a period: checked every 20 ms, failing at the first check that
 * finds it false. For "nothing happens" assertions (never two active pollers, still one warning, healthy while
 * idle), in place of a fixed sleep followed by one check. Awaitility's {@code during} is not the same: with an
 * {@code atMost} longer than the period it passes once the condition has held for the period at any time, so a
 * condition that was false for a moment still passes.
 */
public final class Throughout {

    private static final Duration CHECK_EVERY = Duration.ofMillis(20);

    private Throughout() {
    }

    /**
     * Fails with an {@link AssertionError} naming {@code what} as soon as {@code condition} is false (or throws)
     * within {@code period}.
     */
    public static void holds(String what, Duration period, Callable<Boolean> condition) throws InterruptedException {
        long start = System.nanoTime();
        long end = start + period.toNanos();
        while (true) {
            if (!check(what, condition)) {
                throw new AssertionError(what + ": false after " + (System.nanoTime() - start) / 1_000_000
                        + " ms of " + period.toMillis() + " ms");
            }
            long left = end - System.nanoTime();
            if (left <= 0) {
                return;
            }
            Pacing.pause(Duration.ofNanos(Math.min(left, CHECK_EVERY.toNanos())));
        }
    }

    private static boolean check(String what, Callable<Boolean> condition) throws InterruptedException {
        try {
            return condition.call();
        } catch (InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new AssertionError(what + ": the check failed", e);
        }
    }
}
