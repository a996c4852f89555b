package dev.outboxrelay.daemon;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import java.util.Optional;
import java.util.function.Function;

/**
 * The long-running relay process: its source, the health and metrics endpoint, the probes and, in CDC mode,
 * the election of the one active instance per relay name. Moves through {@link DaemonState}; {@code run} only
 * wires it to the command line and to signals.
 */
public interface RelayDaemon extends AutoCloseable {

    /**
     * A daemon in state NEW; nothing is contacted before {@link #start()}.
     *
     * @param sources builds a fresh source reporting to the given listener (the daemon's metrics); called
     *                once, or once per leadership term in CDC mode
     */
    /** The relay's version from the build ({@code unknown} when run from classes without it). */
    static String version() {
        return PlatformMetrics.version();
    }

    static RelayDaemon create(DaemonSettings settings, Function<RelayListener, OutboxSource> sources) {
        return new DefaultRelayDaemon(settings, sources);
    }

    /**
     * NEW → STARTING → RUNNING: serves the endpoint, starts the probes and the source (or the election).
     *
     * @throws Exception why it could not start; the daemon is then FAILED and everything opened is closed
     */
    void start() throws Exception;

    DaemonState state();

    /** Asks {@link #awaitStopRequest()} to return; safe from a signal handler. */
    void requestStop();

    /** Blocks until a stop was requested or a fatal error occurred. */
    void awaitStopRequest() throws InterruptedException;

    /** The fatal error that ended the daemon, if any. */
    Optional<Throwable> failure();

    /** {@code /health/ready}'s answer now: whether ready, and the JSON body explaining it. */
    Health readiness();

    /** The port the endpoint listens on, or -1 when disabled. */
    int httpPort();

    /**
     * RUNNING → STOPPING → STOPPED: takes no new work, finishes and marks the in-flight batch, flushes the
     * producer, releases leadership, within the shutdown timeout. Idempotent and thread-safe; a second call
     * waits for the first.
     *
     * @return true when the stop completed in time and without a fatal error (state STOPPED), else FAILED
     */
    boolean stop();

    /** Same as {@link #stop()}. */
    @Override
    void close();

    /**
     * A health answer.
     *
     * @param ok   whether healthy (HTTP 200) or not (503)
     * @param json the body, e.g. {@code {"status":"ready","role":"standby",...}}
     */
    record Health(boolean ok, String json) {
    }
}
