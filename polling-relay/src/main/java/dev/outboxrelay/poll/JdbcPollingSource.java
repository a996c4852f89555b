package dev.outboxrelay.poll;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.acknowledge.Acknowledger;
import dev.outboxrelay.core.acknowledge.RetentionPurger;
import dev.outboxrelay.core.delivery.Backoff;
import dev.outboxrelay.core.delivery.KeyParking;
import dev.outboxrelay.core.delivery.TopicLimits;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.core.route.EventRouter;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
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
 * runs a pipeline on that same connection: fetch the oldest unsent rows (from the {@link CommitHorizon}'s
 * floor), send them, and while Kafka acknowledges, fetch and send the next batch; acknowledged batches are
 * marked strictly in order by the {@link Marker} on a second session. Every fetch runs on the lock-holding
 * session, so losing it stops fetching at once.
 */
final class JdbcPollingSource implements PollingSource {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcPollingSource.class);
    /** Acknowledgements slower than this count as a Kafka outage for health and metrics (we keep waiting). */
    private static final long SLOW_ACK_NANOS = TimeUnit.SECONDS.toNanos(15);
    private static final long DRAIN_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(30);
    private static final Duration INITIAL_BACKOFF = Duration.ofMillis(100);
    private static final String[] NO_KEYS = new String[0];

    private final PollSettings settings;
    private final ConnectionFactory connections;
    private final ProducerSettings producerSettings;
    private final RelayListener listener;
    private final OutboxQueries queries;
    private final Acknowledger acknowledger;
    private final BatchPublisher batches;
    private final Backoff kafkaBackoff;
    private final Backoff databaseBackoff;
    /** Keys whose rows the fetch leaves out for now: their topic is unusable, or a row waits for its retry. */
    private final KeyParking parking;
    private final AtomicBoolean started = new AtomicBoolean();
    private final AtomicBoolean closed = new AtomicBoolean();

    private volatile boolean stopping;
    private volatile boolean active;
    private volatile boolean kafkaDown;
    private volatile boolean databaseDown;
    private String sessionProblem;
    private EventPublisher publisher;
    private TopicLimits limits;
    private RetentionPurger purger;
    private Thread worker;

    JdbcPollingSource(PollSettings settings, ConnectionFactory connections, EventRouter router,
                      ProducerSettings producerSettings, RelayListener listener) {
        this.settings = settings;
        this.connections = connections;
        this.producerSettings = producerSettings;
        this.listener = listener;
        this.queries = new OutboxQueries(settings.table(), settings.onPoison());
        this.acknowledger = Acknowledger.forTable(settings.table(), settings.onPublish());
        this.kafkaBackoff = Backoff.exponential(INITIAL_BACKOFF, settings.maxBackoff());
        this.databaseBackoff = Backoff.exponential(INITIAL_BACKOFF, settings.maxBackoff());
        this.limits = TopicLimits.unknown();
        this.parking = KeyParking.create(listener::parkedKeys);
        this.batches = new BatchPublisher(router, parking, listener,
                settings.deadLetterTopic().orElse(null), settings.maxAttempts());
    }

    @Override
    public void start() {
        if (!started.compareAndSet(false, true)) {
            throw new IllegalStateException("poll source already started");
        }
        LOG.info("Starting poll source: {}", settings);
        publisher = EventPublisher.kafka(producerSettings);
        limits = TopicLimits.kafka(producerSettings.producerProperties());
        batches.use(publisher, limits);
        if (settings.onPublish() == Acknowledger.OnPublish.MARK) {
            purger = new RetentionPurger(settings.table(), settings.retention(), settings.purgeInterval(),
                    settings.purgeBatchSize(), settings.relayName(), connections::connect, () -> active && !stopping);
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
        return started.get() && !stopping && worker.isAlive() && !kafkaDown && !databaseDown;
    }

    private void run() {
        while (!stopping) {
            try (Connection c = connections.connect()) {
                c.setAutoCommit(true);
                queries.prepareSession(c, settings.relayName());
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
                LOG.info("Active poller of {} now; publishing", settings.table());
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
                    LOG.info("No longer the active poller of {}", settings.table());
                }
                active = false;
            }
        }
    }

    /** Waits as a standby until the advisory lock is ours; false when stopping. */
    private boolean becomeActive(Connection c) throws SQLException {
        boolean announced = false;
        while (!stopping) {
            if (queries.tryLock(c)) {
                return true;
            }
            databaseRecovered();
            if (!announced) {
                LOG.info("Another relay is polling {}; standing by", settings.table());
                announced = true;
            }
            pause(settings.standbyInterval().toMillis());
        }
        return false;
    }

    private void lead(Connection c) throws SQLException, InterruptedException {
        Deque<Batch> inFlight = new ArrayDeque<>();
        PGConnection notifications = c.unwrap(PGConnection.class);
        boolean more = true;
        long pausedUntil = 0;
        try (PreparedStatement fetch = queries.prepareFetch(c);
             Marker marker = Marker.open(settings, connections, queries, acknowledger, batches, listener)) {
            CommitHorizon horizon = CommitHorizon.open(c, queries);
            while (true) {
                pausedUntil = handOver(inFlight, marker, pausedUntil);
                while (!inFlight.isEmpty() && inFlight.peek().marked != null && inFlight.peek().marked.isDone()) {
                    Marker.join(inFlight.poll().marked);
                    more = true;
                }
                if (stopping) {
                    drain(inFlight, marker);
                    return;
                }
                long now = System.nanoTime();
                if (now - pausedUntil < 0) {
                    awaitProgress(inFlight, Math.min(100, TimeUnit.NANOSECONDS.toMillis(pausedUntil - now) + 1));
                    continue;
                }
                if (more && inFlight.size() < settings.pipelineDepth()) {
                    horizon.advance(c);
                    long fetchStart = System.nanoTime();
                    List<OutboxRow> rows = queries.fetch(fetch, excluded(inFlight), horizon.floor(),
                            parkedKeys(), settings.batchSize());
                    databaseRecovered(); // only a session that fetched has proven itself: no flapping on errors
                    long fetched = System.nanoTime();
                    more = rows.size() == settings.batchSize();
                    if (rows.isEmpty()) {
                        continue;
                    }
                    Batch batch = batches.send(rows, blocked(inFlight));
                    batch.fetchMicros = (fetched - fetchStart) / 1000;
                    batch.sendMicros = (System.nanoTime() - fetched) / 1000;
                    horizon.fetched(c, rows);
                    if (batch.outage != null) {
                        pausedUntil = kafkaOutage(batch.outage);
                        more = true; // retry the held rows as soon as the backoff is over
                    }
                    if (!batch.isEmpty()) {
                        inFlight.add(batch);
                    } else if (!inFlight.isEmpty() || batch.outage == null) {
                        // Everything fetched waits (behind an in-flight batch, or for its topic): don't spin.
                        more = false;
                    }
                    continue;
                }
                if (!inFlight.isEmpty()) {
                    awaitProgress(inFlight, 100);
                    continue;
                }
                // Idle: sleep until rows are committed (NOTIFY) or the fallback interval passes.
                notifications.getNotifications((int) Math.max(1, settings.pollInterval().toMillis()));
                more = true;
            }
        }
    }

    /** Hands the acknowledged batches to the marker, strictly in order; returns until when to pause for Kafka. */
    private long handOver(Deque<Batch> inFlight, Marker marker, long pausedUntil) {
        for (Batch batch : inFlight) {
            if (batch.marked != null) {
                continue;
            }
            if (!batch.acked().isDone()) {
                break;
            }
            pausedUntil = settle(batch, marker, pausedUntil);
        }
        return pausedUntil;
    }

    /** Waits until the oldest batch is marked or the oldest unmarked one is acknowledged, at most {@code millis}. */
    private void awaitProgress(Deque<Batch> inFlight, long millis) throws InterruptedException {
        if (inFlight.isEmpty()) {
            pause(millis);
            return;
        }
        Batch waiting = null;
        for (Batch batch : inFlight) {
            if (batch.marked == null) {
                waiting = batch;
                break;
            }
        }
        Batch head = inFlight.peek();
        CompletableFuture<?> progress = waiting == null ? head.marked
                : head.marked == null ? waiting.acked() : CompletableFuture.anyOf(head.marked,
                        waiting.acked());
        try {
            progress.get(millis, TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            if (waiting != null && !kafkaDown && System.nanoTime() - waiting.startedNanos > SLOW_ACK_NANOS) {
                kafkaDown = true;
                LOG.warn("Kafka has not acknowledged a batch for {} s; still waiting",
                        TimeUnit.NANOSECONDS.toSeconds(SLOW_ACK_NANOS));
                listener.outage("kafka", new TimeoutException("no acknowledgement from Kafka"));
            }
        } catch (ExecutionException e) {
            // acked() swallows failures (read per record when settling); a marking failure is rethrown by the loop
        }
    }

    /** Settles the in-flight batches before stopping, waiting a bounded time for Kafka. */
    private void drain(Deque<Batch> inFlight, Marker marker) throws SQLException, InterruptedException {
        long deadline = System.nanoTime() + DRAIN_TIMEOUT_NANOS;
        for (Batch batch : inFlight) {
            if (batch.marked != null) {
                continue;
            }
            long left = deadline - System.nanoTime();
            try {
                batch.acked().get(Math.max(0, left), TimeUnit.NANOSECONDS);
            } catch (TimeoutException | ExecutionException e) {
                LOG.warn("Stopping with {} unacknowledged batches; their rows stay unsent and will be published again",
                        inFlight.stream().filter(b -> b.marked == null).count());
                break;
            }
            settle(batch, marker, 0);
        }
        while (!inFlight.isEmpty() && inFlight.peek().marked != null) {
            Marker.join(inFlight.poll().marked);
        }
    }

    /** Decides a batch's outcome and hands it to the marker; returns until when to pause for a Kafka outage. */
    private long settle(Batch batch, Marker marker, long pausedUntil) {
        BatchPublisher.Outcome outcome = batches.settle(batch);
        batch.marked = marker.mark(batch, outcome);
        if (outcome.outage() != null) {
            return kafkaOutage(outcome.outage());
        }
        if (batch.outage == null) {
            kafkaBackoff.reset();
            if (kafkaDown) {
                kafkaDown = false;
                LOG.info("Kafka acknowledges again; publishing resumed");
                if (!databaseDown) {
                    listener.recovered();
                }
            }
        }
        return pausedUntil;
    }

    private long kafkaOutage(Throwable cause) {
        long delay = kafkaBackoff.nextDelayMillis();
        if (!kafkaDown) {
            kafkaDown = true;
            LOG.warn("Kafka unavailable; rows stay unsent and are retried with backoff: {}", cause.toString());
            listener.outage("kafka", cause);
        }
        return System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(delay);
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
            if (!kafkaDown) {
                listener.recovered();
            }
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

    private static long[] excluded(Deque<Batch> inFlight) {
        if (inFlight.isEmpty()) {
            return new long[0];
        }
        return inFlight.stream().map(Batch::claimedSeqs).flatMapToLong(java.util.Arrays::stream).toArray();
    }

    private static Set<String> blocked(Deque<Batch> inFlight) {
        Set<String> keys = new HashSet<>();
        for (Batch b : inFlight) {
            keys.addAll(b.blockingKeys);
        }
        return keys;
    }

    private void pause(long millis) {
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!stopping && System.nanoTime() - end < 0) {
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
                worker.join(TimeUnit.NANOSECONDS.toMillis(DRAIN_TIMEOUT_NANOS) + 10_000);
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
