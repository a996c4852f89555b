package dev.outboxrelay.daemon;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.publish.FencedException;
import dev.outboxrelay.core.SourceSetupException;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One thread that competes for the {@link LeaderLock} every interval. On winning it creates and starts a fresh
 * source (a closed source cannot be restarted); while leading it checks the lock every interval and closes
 * the source the moment it cannot prove it still holds it, because another instance may already publish.
 */
final class LeaderElectedRunner implements SourceRunner {

    private static final Logger LOG = LoggerFactory.getLogger(LeaderElectedRunner.class);

    private final LeaderLock lock;
    private final Supplier<OutboxSource> sources;
    private final Duration interval;
    private final Consumer<Throwable> fatal;
    private final CountDownLatch stop = new CountDownLatch(1);
    private volatile OutboxSource source;
    private volatile boolean lockReachable;
    private Thread thread;

    LeaderElectedRunner(LeaderLock lock, Supplier<OutboxSource> sources, Duration interval,
                        Consumer<Throwable> fatal) {
        this.lock = lock;
        this.sources = sources;
        this.interval = interval;
        this.fatal = fatal;
    }

    @Override
    public synchronized void start() {
        if (thread != null) {
            throw new IllegalStateException("leader election already started");
        }
        thread = new Thread(this::run, "outbox-relay-leader");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        boolean announced = false;
        boolean lockProblemLogged = false;
        while (stop.getCount() > 0) {
            try {
                if (source == null) {
                    if (lock.tryAcquire()) {
                        lockReachable = true;
                        lockProblemLogged = false;
                        LOG.info("This instance ({}) is now the active relay of {}; starting the source", lock.instance(),
                                lock.table());
                        OutboxSource s = sources.get();
                        source = s;
                        s.start();
                    } else {
                        lockReachable = true;
                        lockProblemLogged = false;
                        if (!announced) {
                            LOG.info("Another relay (poll or cdc) is active on {}; standing by as {}"
                                    + " (checking every {} ms)", lock.table(), lock.instance(), interval.toMillis());
                            announced = true;
                        }
                    }
                } else if (source.failure().orElse(null) instanceof FencedException) {
                    LOG.warn("Another instance of this relay took over exactly-once publishing of {}; standing by",
                            lock.table());
                    demote();
                    announced = false;
                } else if (!lock.stillHeld()) {
                    LOG.warn("Lost the session holding the relay lock of {}; stopping the source at once, another"
                            + " instance may already be active", lock.table());
                    demote();
                    announced = false;
                }
            } catch (SourceSetupException e) {
                demote();
                fatal.accept(e);
                return;
            } catch (SQLException | RuntimeException e) {
                lockReachable = false;
                if (!lockProblemLogged) {
                    LOG.warn("Cannot reach PostgreSQL for the relay lock ({}); retrying every {} ms", e.getMessage(),
                            interval.toMillis());
                    lockProblemLogged = true;
                }
                demote();
            }
            try {
                stop.await(interval.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Closes the source (if any) and then the lock session: publishing stops before anyone can take over. */
    private void demote() {
        OutboxSource s = source;
        source = null;
        if (s != null) {
            s.close();
            LOG.info("No longer the active relay of {}", lock.table());
        }
        lock.close();
    }

    @Override
    public boolean isActive() {
        return source != null;
    }

    @Override
    public java.util.Optional<Throwable> failure() {
        OutboxSource s = source;
        // Fenced is handled here (the source is closed and this instance stands by), not a reason to exit.
        return s == null ? java.util.Optional.empty() : s.failure().filter(e -> !(e instanceof FencedException));
    }

    @Override
    public boolean isHealthy() {
        OutboxSource s = source;
        return s == null ? lockReachable : s.isHealthy();
    }

    @Override
    public String problem() {
        OutboxSource s = source;
        return s == null ? (lockReachable ? null : "relay lock unreachable") : s.problem();
    }

    @Override
    public void close() {
        stop.countDown();
        Thread t;
        synchronized (this) {
            t = thread;
        }
        if (t != null && t != Thread.currentThread()) {
            try {
                // The election thread may be inside source.start(); let it finish so the source is closed below.
                t.join(TimeUnit.MINUTES.toMillis(2));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        demote();
    }
}
