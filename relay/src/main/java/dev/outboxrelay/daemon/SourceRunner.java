package dev.outboxrelay.daemon;

import dev.outboxrelay.core.OutboxSource;
import java.util.function.Consumer;
import java.util.function.Supplier;

/** Runs the daemon's source: directly (poll, which coordinates itself), or only while leading (CDC). */
interface SourceRunner extends AutoCloseable {

    /** A runner that starts one source at once and asks it whether it is the active poller. */
    static SourceRunner direct(Supplier<OutboxSource> sources) {
        return new DirectRunner(sources);
    }

    /**
     * A runner that creates and starts a source only while it holds {@code lock}, and closes it as soon as it
     * cannot prove it still does; {@code fatal} receives setup errors a human must fix.
     */
    static SourceRunner leaderElected(LeaderLock lock, Supplier<OutboxSource> sources,
                                      java.time.Duration interval, Consumer<Throwable> fatal) {
        return new LeaderElectedRunner(lock, sources, interval, fatal);
    }

    /** Starts; throws when the source cannot start. */
    void start();

    /** True while this instance publishes (false for a standby). */
    boolean isActive();

    /** True while running normally: an active source without outage, or a standby ready to take over. */
    boolean isHealthy();

    /** While not {@link #isHealthy()}: why, for {@code /health/ready} ({@link OutboxSource#problem()}); may be null. */
    default String problem() {
        return null;
    }

    /** Why the running source stopped working for good ({@link OutboxSource#failure()}); empty otherwise. */
    java.util.Optional<Throwable> failure();

    /** Stops taking new work, finishes and marks the in-flight batch, releases leadership last. Idempotent. */
    @Override
    void close();
}
