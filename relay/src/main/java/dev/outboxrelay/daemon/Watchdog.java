package dev.outboxrelay.daemon;

import dev.outboxrelay.core.Heartbeat;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Keeps the daemon from lingering half-alive: every 500 ms it asks the source runner whether its source died
 * ({@link SourceRunner#failure()}), and it catches an {@link Error} that ends any thread of the process (a worker,
 * a probe, a library's thread); either is handed to {@code fatal}, which stops the daemon with exit 1. With
 * {@link #orStalled} a worker stuck past a bound counts as dead too.
 */
final class Watchdog implements AutoCloseable {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(Watchdog.class);
    private static final long PERIOD_MILLIS = 500;

    private final Supplier<Optional<Throwable>> failure;
    private final Consumer<Throwable> fatal;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final Thread.UncaughtExceptionHandler previous;
    private final Thread thread;

    private Watchdog(Supplier<Optional<Throwable>> failure, Consumer<Throwable> fatal) {
        this.failure = failure;
        this.fatal = fatal;
        this.previous = Thread.getDefaultUncaughtExceptionHandler();
        Thread.setDefaultUncaughtExceptionHandler(this::uncaught);
        this.thread = new Thread(this::watch, "outbox-relay-watchdog");
        thread.setDaemon(true);
    }

    /** Starts watching; {@code fatal} is called at most once per failure seen. */
    static Watchdog start(Supplier<Optional<Throwable>> failure, Consumer<Throwable> fatal) {
        Watchdog w = new Watchdog(failure, fatal);
        w.thread.start();
        return w;
    }

    /**
     * {@code failure}, or else a worker thread stuck past {@code bound} ({@link Heartbeat}) as a failure: a thread
     * that stopped making progress is treated like one that died.
     */
    static Supplier<Optional<Throwable>> orStalled(Supplier<Optional<Throwable>> failure,
                                                   Function<Duration, Optional<String>> stalled, Duration bound) {
        return () -> failure.get().or(() -> stalled.apply(bound)
                .map(what -> new IllegalStateException("a worker is stuck: " + what)));
    }

    private void uncaught(Thread t, Throwable e) {
        if (previous != null) {
            previous.uncaughtException(t, e);
        } else {
            LOG.error("Thread {} died", t.getName(), e);
        }
        if (e instanceof Error) {
            fatal.accept(new IllegalStateException("thread " + t.getName() + " died: " + e, e));
        }
    }

    private void watch() {
        try {
            while (!stop.await(PERIOD_MILLIS, TimeUnit.MILLISECONDS)) {
                Optional<Throwable> f = failure.get();
                if (f.isPresent()) {
                    fatal.accept(f.get());
                    return;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void close() {
        stop.countDown();
        if (Thread.getDefaultUncaughtExceptionHandler() != null) {
            Thread.setDefaultUncaughtExceptionHandler(previous);
        }
    }
}
