package dev.outboxrelay.poll;

import dev.outboxrelay.core.Heartbeat;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.core.acknowledge.Acknowledger;
import dev.outboxrelay.core.acknowledge.RetentionPurger;
import dev.outboxrelay.core.delivery.Backoff;
import dev.outboxrelay.core.delivery.DeliveryPipeline;
import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.core.delivery.DeliverySettings;
import dev.outboxrelay.core.delivery.KeyParking;
import dev.outboxrelay.core.delivery.RetryHolds;
import dev.outboxrelay.core.delivery.RowStore;
import dev.outboxrelay.core.delivery.TopicLimits;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.publish.FencedException;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.AdvisoryLocks;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.postgresql.PGConnection;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One worker thread per source. As a standby it retries the table's advisory lock; as the active poller it
 * fetches the oldest unsent rows on that same connection (from the {@link CommitHorizon}'s floor, leaving out the
 * rows of parked keys and of batches still in flight) and submits them to relay-core's {@link DeliveryPipeline},
 * which publishes, settles and marks them on a second session while the next batches are fetched. Every fetch
 * runs on the lock-holding session, so losing it stops fetching at once; marking only ever marks rows Kafka
 * acknowledged, so it is correct even after the lock was lost.
 */
final class JdbcPollingSource implements PollingSource {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcPollingSource.class);
    private static final Duration DRAIN_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration INITIAL_BACKOFF = Duration.ofMillis(100);
    private static final String[] NO_KEYS = new String[0];

    /** A submitted batch: its rows are left out of the fetch until it is settled. */
    private record InFlight(long[] seqs, CompletableFuture<Void> settled) {
    }

    private final PollSettings settings;
    private final ConnectionFactory connections;
    private final EventRouter router;
    private final ProducerSettings producerSettings;
    private final RelayListener listener;
    private final OutboxQueries queries;
    private final Acknowledger acknowledger;
    private final DeliverySettings delivery;
    private final Backoff databaseBackoff;
    /** Estimated bytes one fetch reads at most (one row always): the in-flight budget's share of a batch. */
    private final long batchBytes;
    /**
     * Rows the next fetch asks for: the batch size, or fewer after a fetch that the byte budget cut short, so that
     * PostgreSQL does not size (decompress) many big rows only for the cut to drop them; doubles back after each
     * fetch.
     */
    private int fetchLimit;
    /** Keys whose rows the fetch leaves out for now: their topic is unusable, or a row waits for its retry. */
    private final KeyParking parking;
    /** {@code application_name} of this source's sessions: how {@code status} names the lock holder. */
    private final String instance;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    private volatile boolean stopping;
    private volatile boolean active;
    private volatile boolean databaseDown;
    /** The current leadership term's pipeline, or null as a standby. */
    private volatile Throwable failure;
    private volatile DeliveryPipeline pipeline;
    private String sessionProblem;
    private EventPublisher publisher;
    private TopicLimits limits;
    private RetentionPurger purger;
    private Thread worker;

    JdbcPollingSource(PollSettings settings, ConnectionFactory connections, EventRouter router,
                      ProducerSettings producerSettings, RelayListener listener) {
        this.settings = settings;
        this.connections = connections;
        this.router = router;
        this.producerSettings = producerSettings;
        this.listener = listener;
        this.queries = new OutboxQueries(settings.table(), settings.onPoison());
        this.acknowledger = Acknowledger.forTable(settings.table(), settings.onPublish());
        this.delivery = new DeliverySettings(settings.maxAttempts(), settings.onPoison(), settings.deadLetterTopic(),
                settings.batchSize() * settings.pipelineDepth(), settings.maxInFlightBytes(), "outbox-relay-mark");
        this.batchBytes = Math.max(1, settings.maxInFlightBytes() / settings.pipelineDepth());
        this.databaseBackoff = Backoff.exponential(INITIAL_BACKOFF, settings.maxBackoff());
        this.limits = TopicLimits.unknown();
        this.fetchLimit = settings.batchSize();
        this.parking = KeyParking.create(listener::parkedKeys);
        this.instance = AdvisoryLocks.instanceName(settings.relayName(), "poll");
    }

    @Override
    public void start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("poll source already started");
        }
        LOG.info("Starting poll source: {}", settings);
        publisher = EventPublisher.kafka(producerSettings);
        limits = TopicLimits.kafka(producerSettings.producerProperties());
        if (settings.onPublish() == Acknowledger.OnPublish.MARK) {
            purger = new RetentionPurger(settings.table(), settings.retention(), settings.purgeInterval(),
                    settings.purgeBatchSize(), settings.relayName(), connections::open, () -> active && !stopping);
            purger.start();
        }
        worker = new Thread(this::run, "outbox-relay-poll");
        worker.start();
    }

    @Override
    public boolean isActive() {
        return active;
    }

    @Override
    public boolean isHealthy() {
        DeliveryPipeline p = pipeline;
        return started.get() && !stopping && worker.isAlive() && !databaseDown
                && (p == null || (p.isRunning() && !p.inOutage()));
    }

    @Override
    public String problem() {
        DeliveryPipeline p = pipeline;
        return databaseDown ? "database unavailable"
                : p != null && p.inOutage() ? "kafka unavailable: " + p.outageReason() : null;
    }

    @Override
    public Optional<Throwable> failure() {
        DeliveryPipeline p = pipeline;
        // A fenced pipeline (another instance took over exactly-once publishing) is not a failure: this source
        // stands by again by itself.
        return failure != null ? Optional.of(failure) : p == null ? Optional.empty()
                : p.failure().filter(e -> !(e instanceof FencedException));
    }

    private void run() {
        Heartbeat.watch();
        try {
            relay();
        } catch (Error e) {
            // Never linger half-alive: the daemon sees failure() and stops the process; the lock session is closed.
            failure = e;
            LOG.error("The poll worker died; the relay stops", e);
        } finally {
            Heartbeat.unwatch();
        }
    }

    private void relay() {
        while (!stopping) {
            Heartbeat.beat();
            try (Connection c = connections.open()) {
                c.setAutoCommit(true);
                queries.prepareSession(c, instance);
                String problem = queries.sessionProblem(c, settings.onPublish() == Acknowledger.OnPublish.DELETE);
                if (problem != null) {
                    cannotRelay(problem);
                    pause(databaseBackoff.nextDelayMillis());
                    continue;
                }
                if (!becomeActive(c)) {
                    continue;
                }
                active = true;
                LOG.info("Active relay of {} now ({}); publishing", settings.table(), instance);
                int held = RetryHolds.restore(c, settings.table(), parking);
                if (held > 0) {
                    LOG.info("{} key(s) of {} wait for a retry, as recorded in the table", held, settings.table());
                }
                queries.listen(c);
                lead(c);
            } catch (SQLException | RuntimeException e) {
                if (stopping) {
                    break;
                }
                if (!databaseDown) {
                    databaseDown = true;
                    LOG.warn("Lost the database connection for {}; unacknowledged batches will be published again: {}",
                            settings.table(), e.toString());
                    listener.outage("database", e);
                }
                pause(databaseBackoff.nextDelayMillis());
            } catch (InterruptedException e) {
                break;
            } finally {
                if (active) {
                    LOG.info("No longer the active relay of {}", settings.table());
                }
                active = false;
            }
        }
    }

    /** Waits as a standby until the advisory lock is ours; false when stopping. */
    private boolean becomeActive(Connection c) throws SQLException {
        boolean announced = false;
        while (!stopping) {
            Heartbeat.beat();
            if (queries.tryLock(c, instance)) {
                return true;
            }
            databaseRecovered();
            if (!announced) {
                LOG.info("Another relay (poll or cdc) is active on {}; standing by", settings.table());
                announced = true;
            }
            pause(settings.standbyInterval().toMillis());
        }
        return false;
    }

    private void lead(Connection c) throws SQLException, InterruptedException {
        Deque<InFlight> inFlight = new ArrayDeque<>();
        PGConnection notifications = c.unwrap(PGConnection.class);
        boolean more = true;
        DeliveryPipeline p = DeliveryPipeline.start(delivery, router, publisher, limits, parking,
                RowStore.jdbc(acknowledger, this::markingSession), listener);
        pipeline = p;
        try (PreparedStatement fetch = queries.prepareFetch(c)) {
            CommitHorizon horizon = CommitHorizon.open(c, queries);
            while (true) {
                Heartbeat.beat();
                while (!inFlight.isEmpty() && inFlight.peek().settled().isDone()) {
                    inFlight.poll();
                    more = true;
                }
                if (stopping) {
                    drain(p);
                    return;
                }
                if (!p.isRunning()) {
                    if (p.failure().orElse(null) instanceof FencedException) {
                        LOG.warn("Another instance took over {}; standing by", settings.table());
                        pause(settings.standbyInterval().toMillis());
                        return;
                    }
                    throw new IllegalStateException("the delivery pipeline stopped");
                }
                if (more && inFlight.size() < settings.pipelineDepth()) {
                    horizon.advance(c);
                    long fetchStart = System.nanoTime();
                    int limit = fetchLimit;
                    List<OutboxRow> rows = queries.fetch(fetch, excluded(inFlight), horizon.floor(),
                            parkedKeys(), limit, batchBytes);
                    databaseRecovered(); // only a session that fetched has proven itself: no flapping on errors
                    if (rows.isEmpty()) {
                        more = false;
                        continue;
                    }
                    List<Item> items = JdbcUnsentRows.items(rows);
                    long bytes = items.stream().mapToLong(Item::bytes).sum();
                    boolean cutByBytes = rows.size() < limit && bytes >= batchBytes / 2;
                    more = rows.size() == limit || cutByBytes;
                    fetchLimit = cutByBytes ? Math.min(settings.batchSize(), 2 * rows.size())
                            : (int) Math.min(settings.batchSize(), 2L * limit);
                    LOG.debug("Fetched {} rows ({} bytes) in {} µs", rows.size(), bytes,
                            (System.nanoTime() - fetchStart) / 1000);
                    InFlight batch = new InFlight(rows.stream().mapToLong(OutboxRow::seq).toArray(),
                            new CompletableFuture<>());
                    inFlight.add(batch);
                    p.submit(items, false, last -> batch.settled().complete(null));
                    horizon.fetched(c, rows);
                    continue;
                }
                if (!inFlight.isEmpty()) {
                    awaitSettled(inFlight.peek(), 100);
                    continue;
                }
                // Idle: sleep until rows are committed (NOTIFY) or the fallback interval passes.
                notifications.getNotifications((int) Math.max(1, settings.pollInterval().toMillis()));
                more = true;
            }
        } finally {
            pipeline = null;
            p.close();
        }
    }

    /** The marking session: the pipeline's own connection, prepared like the fetching one. */
    private Connection markingSession() throws SQLException {
        Connection m = connections.open();
        try {
            queries.prepareSession(m, instance);
            return m;
        } catch (SQLException | RuntimeException e) {
            m.close();
            throw e;
        }
    }

    private static void awaitSettled(InFlight batch, long millis) throws InterruptedException {
        try {
            batch.settled().get(millis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException | ExecutionException e) {
            // looked at again by the loop; the pipeline reports a slow or unavailable Kafka itself
        }
    }

    /** Settles the in-flight batches before stopping, waiting a bounded time for Kafka. */
    private static void drain(DeliveryPipeline p) {
        try {
            if (!p.drain(DRAIN_TIMEOUT)) {
                LOG.warn("Stopping with {} unacknowledged batch(es); their rows stay unsent and will be published"
                        + " again", p.unsettled());
            }
        } catch (InterruptedException e) {
            LOG.debug("Stopping before every batch was settled");
        }
    }

    /** A session that connects but cannot relay: one WARN per distinct reason, not ready, backing off. */
    private void cannotRelay(String problem) {
        if (!problem.equals(sessionProblem)) {
            sessionProblem = problem;
            LOG.warn("Cannot relay {}: {}; retrying with backoff (at most every {} s)", settings.table(), problem,
                    settings.maxBackoff().toSeconds());
        }
        if (!databaseDown) {
            databaseDown = true;
            listener.outage("database", new SQLException(problem));
        }
    }

    private void databaseRecovered() {
        databaseBackoff.reset();
        sessionProblem = null;
        if (databaseDown) {
            databaseDown = false;
            LOG.info("Database connection for {} restored", settings.table());
            listener.recovered();
        }
    }

    /**
     * The keys to leave out of the next fetch. A due key is released instead: poll needs no drainer, the fetch
     * simply reads its rows again from the table, in seq order, before any later row of the key.
     */
    private String[] parkedKeys() {
        for (KeyParking.Hold hold : parking.due()) {
            parking.releaseIfUnchanged(hold.key(), hold.parkedEvents());
        }
        return parking.size() == 0 ? NO_KEYS : parking.keys().toArray(NO_KEYS);
    }

    private static long[] excluded(Deque<InFlight> inFlight) {
        if (inFlight.isEmpty()) {
            return new long[0];
        }
        return inFlight.stream().map(InFlight::seqs).flatMapToLong(Arrays::stream).toArray();
    }

    private void pause(long millis) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!stopping && System.nanoTime() - end < 0) {
            Heartbeat.beat();
            try {
                Thread.sleep(Math.min(50, Math.max(1, TimeUnit.NANOSECONDS.toMillis(end - System.nanoTime()))));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        stopping = true;
        LOG.info("Stopping poll source for {}", settings.table());
        if (worker != null) {
            try {
                worker.join(DRAIN_TIMEOUT.toMillis() + 10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (purger != null) {
            purger.close();
        }
        if (publisher != null) {
            publisher.close(Duration.ofSeconds(10));
        }
        limits.close();
        LOG.info("Poll source for {} stopped", settings.table());
    }
}
