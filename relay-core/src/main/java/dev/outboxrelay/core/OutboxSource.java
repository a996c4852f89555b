package dev.outboxrelay.core;

/**
 * A source of outbox events (poll or CDC) running the whole pipeline: read, route, publish, acknowledge.
 * The daemon starts exactly one and closes it on shutdown.
 */
public interface OutboxSource extends AutoCloseable {

    /** Starts the source's own threads and returns; failures later are reported to the {@link RelayListener}. */
    void start();

    /** True while the source is running and not in an outage. */
    boolean isHealthy();

    /**
     * While not {@link #isHealthy()}: why, in a few words for {@code /health/ready} (no host, no server message), e.g.
     * {@code "kafka unavailable: ClusterAuthorizationException; producer rebuilt, retrying"}; null when unknown.
     */
    default String problem() {
        return null;
    }

    /**
     * True while this instance publishes; false while it stands by for the table's relay lock (only a source with
     * {@link SourceFactory.Coordination#SOURCE} stands by itself).
     */
    default boolean isActive() {
        return true;
    }

    /**
     * Why the source stopped working for good on its own: a worker thread died of an {@link Error} or a bug. The
     * daemon then stops the process with a non-zero exit (releasing the table's relay lock, so a standby takes
     * over) instead of lingering half-alive. Empty while it works, and after an orderly {@link #close()}.
     */
    default java.util.Optional<Throwable> failure() {
        return java.util.Optional.empty();
    }

    /**
     * Stops taking new work, waits for the in-flight batch to be acknowledged and marked, flushes and closes
     * the producer. Idempotent; safe to call from a shutdown hook.
     */
    @Override
    void close();
}
