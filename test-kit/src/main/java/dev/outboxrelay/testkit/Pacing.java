package dev.outboxrelay.testkit;

import java.time.Duration;

/**
 * The suite's one fixed pause, and only for pacing: spacing a writer's transactions, letting an outage or a quiet
 * spell last as long as the test means it to, stopping something at a chosen point of its start.
 *
 * <p>Never to wait for something. A test waits for the condition it asserts, with a bound
 * ({@code await().atMost(..).until(..)}), and asserts that something does <em>not</em> happen with
 * {@link Throughout#holds}, which checks it all along instead of once at the end. {@code NoFixedSleepTest}
 * holds every test source to this: no {@code Thread.sleep} outside this class, no assertion straight after a pause.
 */
public final class Pacing {

    private Pacing() {
    }

    /** Pauses the calling thread for {@code d} (sub-millisecond parts included). */
    public static void pause(Duration d) throws InterruptedException {
        if (d.isNegative() || d.isZero()) {
            return;
        }
        Thread.sleep(d.toMillis(), d.toNanosPart() % 1_000_000);
    }

    /** Pauses the calling thread for {@code millis} milliseconds. */
    public static void pause(long millis) throws InterruptedException {
        pause(Duration.ofMillis(millis));
    }
}
