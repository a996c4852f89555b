package dev.outboxrelay.core;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Progress of the relay's worker threads, so that a thread stuck in a call that never returns is noticed: a watched
 * thread {@link #beat()}s on every turn of its loop and while it waits for something that may legitimately take long
 * (Kafka down, the pipeline full), so only a thread blocked inside one call goes quiet. Every blocking call a worker
 * makes has its own bound (socket timeouts, {@code max.block.ms}), so silence past {@link #STALL_BOUND} means a
 * stuck thread: the daemon's liveness turns unhealthy and its watchdog stops the process.
 */
public final class Heartbeat {

    /** Silence after which a watched thread counts as stuck: well beyond every timeout of its calls (60 s). */
    public static final Duration STALL_BOUND = Duration.ofMinutes(3);

    private static final Map<Thread, Long> BEATS = new ConcurrentHashMap<>();

    private Heartbeat() {
    }

    /** Watches the current thread from now until {@link #unwatch()}. */
    public static void watch() {
        BEATS.put(Thread.currentThread(), System.nanoTime());
    }

    /** The current thread made progress; nothing when it is not watched. */
    public static void beat() {
        Thread t = Thread.currentThread();
        BEATS.computeIfPresent(t, (k, v) -> System.nanoTime());
    }

    /** Stops watching the current thread (it ends, or hands over to a call that is watched otherwise). */
    public static void unwatch() {
        BEATS.remove(Thread.currentThread());
    }

    /**
     * The first watched thread that has been silent for longer than {@code bound}, described for the log and the
     * liveness answer; a thread that ended without {@link #unwatch()} is not stuck (the daemon sees a dead worker
     * through the source's failure) and is forgotten.
     */
    public static Optional<String> stalled(Duration bound) {
        long now = System.nanoTime();
        for (Map.Entry<Thread, Long> e : BEATS.entrySet()) {
            Thread t = e.getKey();
            if (!t.isAlive()) {
                BEATS.remove(t, e.getValue());
                continue;
            }
            long silent = now - e.getValue();
            if (silent > bound.toNanos()) {
                return Optional.of("thread " + t.getName() + " made no progress for " + silent / 1_000_000_000L
                        + " s");
            }
        }
        return Optional.empty();
    }
}
