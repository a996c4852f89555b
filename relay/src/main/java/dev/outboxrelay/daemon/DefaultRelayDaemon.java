package dev.outboxrelay.daemon;

import dev.outboxrelay.core.Heartbeat;
import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.SourceFactory.Coordination;
import dev.outboxrelay.schema.AdvisoryLocks;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class DefaultRelayDaemon implements RelayDaemon {

    private static final Logger LOG = LoggerFactory.getLogger(DefaultRelayDaemon.class);

    private final DaemonSettings settings;
    private final Function<RelayListener, OutboxSource> sources;
    private final Lifecycle lifecycle = new Lifecycle();
    private final CountDownLatch stopRequested = new CountDownLatch(1);
    private volatile Throwable failure;
    private volatile RelayMetrics metrics;
    private volatile Watchdog watchdog;
    private volatile Probes probes;
    private volatile HttpEndpoints http;
    private volatile SourceRunner runner;

    DefaultRelayDaemon(DaemonSettings settings, Function<RelayListener, OutboxSource> sources) {
        this.settings = settings;
        this.sources = sources;
    }

    @Override
    public synchronized void start() throws Exception {
        lifecycle.move(DaemonState.NEW, DaemonState.STARTING);
        try {
            RelayMetrics m = new RelayMetrics(settings.relayName(), settings.mode(), settings.gauges(),
                    () -> runner != null && runner.isActive(), () -> readiness().ok());
            metrics = m;
            Duration probeTimeout = clamp(settings.probeInterval(), Duration.ofSeconds(1), Duration.ofSeconds(5));
            probes = new Probes(settings.database(), settings.table(), settings.inspector(),
                    new KafkaProbe(settings.producerProperties(), probeTimeout), m, settings.probeInterval());
            if (settings.httpPort() > 0) {
                http = new HttpEndpoints(settings.httpHost(), settings.httpPort(), this::liveness,
                        this::readinessAnswer, m::scrape);
                http.start();
            }
            probes.start();
            boolean daemonLocks = settings.coordination() == Coordination.DAEMON;
            runner = daemonLocks
                    ? SourceRunner.leaderElected(new LeaderLock(settings.database(), settings.table(),
                            AdvisoryLocks.instanceName(settings.relayName(), settings.mode()), settings.standbyInterval()),
                            () -> sources.apply(m), settings.standbyInterval(), this::fail)
                    : SourceRunner.direct(() -> sources.apply(m));
            runner.start();
            watchdog = Watchdog.start(Watchdog.orStalled(runner::failure, Heartbeat::stalled, Heartbeat.STALL_BOUND),
                    this::fail);
            lifecycle.move(DaemonState.STARTING, DaemonState.RUNNING);
            LOG.info("Relay '{}' running in {} mode{}", settings.relayName(), settings.mode(),
                    daemonLocks ? " (one active relay per table, standbys check every "
                            + settings.standbyInterval().toMillis() + " ms)" : "");
        } catch (Exception | Error e) {
            closeAll(Duration.ofSeconds(10));
            lifecycle.move(DaemonState.STARTING, DaemonState.FAILED);
            throw e;
        }
    }

    private static Duration clamp(Duration d, Duration min, Duration max) {
        return d.compareTo(min) < 0 ? min : d.compareTo(max) > 0 ? max : d;
    }

    @Override
    public DaemonState state() {
        return lifecycle.state();
    }

    @Override
    public void requestStop() {
        stopRequested.countDown();
    }

    /**
     * A fatal error from a background thread (CDC setup a human must fix, a dead source, an {@link Error} in any
     * thread): ends the daemon with exit 1, so the orchestrator restarts it and a standby takes over.
     */
    private void fail(Throwable t) {
        if (failure != null) {
            return;
        }
        failure = t;
        LOG.error("Stopping the relay: {}", t.toString());
        stopRequested.countDown();
    }

    @Override
    public void awaitStopRequest() throws InterruptedException {
        stopRequested.await();
    }

    @Override
    public Optional<Throwable> failure() {
        return Optional.ofNullable(failure);
    }

    @Override
    public int httpPort() {
        HttpEndpoints h = http;
        return h == null ? -1 : h.port();
    }

    private HttpEndpoints.Answer liveness() {
        DaemonState s = state();
        Optional<String> stalled = Heartbeat.stalled(Heartbeat.STALL_BOUND);
        boolean live = (s == DaemonState.STARTING || s == DaemonState.RUNNING || s == DaemonState.STOPPING)
                && failure == null && stalled.isEmpty();
        return HttpEndpoints.Answer.json(live, "{\"status\":" + Json.quote(live ? "live" : stalled.isPresent()
                ? "stalled" : "dead") + ",\"state\":" + Json.quote(s.name()) + "}\n");
    }

    private HttpEndpoints.Answer readinessAnswer() {
        Health h = readiness();
        return HttpEndpoints.Answer.json(h.ok(), h.json());
    }

    @Override
    public Health readiness() {
        DaemonState s = state();
        Probes p = probes;
        SourceRunner r = runner;
        String database = p == null ? "not started" : p.databaseProblem();
        String kafka = p == null ? "not started" : p.kafkaProblem();
        boolean active = r != null && r.isActive();
        boolean sourceOk = r != null && r.isHealthy();
        boolean ready = s == DaemonState.RUNNING && database == null && kafka == null && sourceOk;
        String why = r == null || sourceOk ? null : r.problem();
        String source = r == null ? "not started" : !sourceOk ? "unhealthy" + (why == null ? "" : ": " + why)
                : active ? "publishing" : "standby";
        String json = "{\"status\":" + Json.quote(ready ? "ready" : "not ready")
                + ",\"state\":" + Json.quote(s.name())
                + ",\"mode\":" + Json.quote(settings.mode())
                + ",\"role\":" + Json.quote(active ? "active" : "standby")
                + ",\"database\":" + Json.quote(database == null ? "up" : database)
                + ",\"kafka\":" + Json.quote(kafka == null ? "up" : kafka)
                + ",\"source\":" + Json.quote(source) + "}\n";
        return new Health(ready, json);
    }

    @Override
    public synchronized boolean stop() {
        if (lifecycle.tryMove(DaemonState.NEW, DaemonState.STOPPED)) {
            return true;
        }
        if (!lifecycle.tryMove(DaemonState.RUNNING, DaemonState.STOPPING)) {
            // Stopped (or failed) before: stop() is idempotent and reports how that ended.
            return state() == DaemonState.STOPPED;
        }
        // A dead source has nothing left to drain: do not keep the lock (and a standby waiting) for long.
        Duration timeout = failure == null ? settings.shutdownTimeout()
                : clamp(settings.shutdownTimeout(), Duration.ZERO, Duration.ofSeconds(5));
        LOG.info("Stopping: taking no new work, finishing the in-flight batch (at most {} s)", timeout.toSeconds());
        boolean drained = closeAll(timeout);
        if (!drained) {
            LOG.error("Shutdown timed out after {} s: the in-flight batch was not confirmed; its rows stay unsent"
                    + " and will be published again by the next relay", timeout.toSeconds());
        }
        boolean clean = drained && failure == null;
        lifecycle.move(DaemonState.STOPPING, clean ? DaemonState.STOPPED : DaemonState.FAILED);
        LOG.info(clean ? "Stopped" : "Stopped with errors");
        return clean;
    }

    /** Closes the source within {@code timeout} (on its own thread so the wait is bounded), then the rest. */
    private boolean closeAll(Duration timeout) {
        boolean drained = true;
        if (watchdog != null) {
            watchdog.close();
        }
        SourceRunner r = runner;
        if (r != null) {
            Thread drain = new Thread(r::close, "outbox-relay-drain");
            drain.setDaemon(true);
            drain.start();
            try {
                drain.join(timeout.toMillis());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            drained = !drain.isAlive();
        }
        if (probes != null) {
            probes.close();
        }
        if (http != null) {
            http.close();
        }
        if (metrics != null) {
            metrics.close();
        }
        return drained;
    }

    @Override
    public void close() {
        stop();
    }
}
