package dev.outboxrelay.cdc;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.acknowledge.Acknowledger;
import dev.outboxrelay.core.acknowledge.Acknowledger.OnPublish;
import dev.outboxrelay.core.acknowledge.RetentionPurger;
import dev.outboxrelay.core.delivery.Backoff;
import dev.outboxrelay.core.delivery.DeliveryPipeline;
import dev.outboxrelay.core.delivery.KeyParking;
import dev.outboxrelay.core.delivery.RowStore;
import dev.outboxrelay.core.delivery.TopicLimits;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.route.EventRouter;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.io.IOException;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The CDC source: one supervisor thread that prepares the slot, rescans the table, then runs the embedded
 * Debezium engine until it stops; if it stops while the source is open (database gone, slot invalidated…),
 * the whole sequence starts again after a backoff.
 */
final class DebeziumCdcSource implements OutboxSource {

    private static final Logger LOG = LoggerFactory.getLogger(DebeziumCdcSource.class);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(30);
    /**
     * Batches' worth of events ({@code max.batch.size} each) handed to Kafka but not yet settled before the next
     * batch waits. So at most (depth + 1) x max.batch.size events are unsettled when the relay crashes, which
     * bounds what a crash can publish twice: see docs/cdc-mode.md.
     */
    static final int PIPELINE_DEPTH = 4;
    private static final Duration STOP_DRAIN = Duration.ofSeconds(30);
    private static final Duration ENGINE_START_WAIT = Duration.ofSeconds(15);
    private static final Duration ENGINE_SETTLE = Duration.ofMillis(500);

    private final CdcSettings settings;
    private final EventPublisher publisher;
    private final RelayListener listener;
    private final Database database;
    private final SlotManager slots;
    private final StoredOffsets offsets;
    private final EventRouter router;
    private final TopicLimits topics;
    private final KeyParking parking;
    private ParkedKeyDrainer drainer;
    private RetentionPurger purger;
    private final CompletableFuture<Void> firstStart = new CompletableFuture<>();
    private volatile boolean closed;
    private volatile boolean streaming;
    private volatile DebeziumEngine<RecordChangeEvent<SourceRecord>> engine;
    /**
     * Completes when the current engine polls (with {@link System#nanoTime()} then) or has finished (with null).
     * Closed before that, Debezium 3.6.1 fails the start with an ERROR; closed between its polling callback and
     * the submission of its polling tasks, its {@code run()} waits for a task that never runs.
     */
    private volatile CompletableFuture<Long> engineUp = CompletableFuture.completedFuture(null);
    /** Completes when the current engine's completion callback ran. */
    private volatile CompletableFuture<Void> engineDone = CompletableFuture.completedFuture(null);
    private Thread supervisor;
    private volatile Throwable failure;
    private volatile DeliveryPipeline pipeline;
    private volatile ChangeHandler handler;

    DebeziumCdcSource(CdcSettings settings, EventRouter router, EventPublisher publisher, TopicLimits topics,
                      RelayListener listener) {
        this.settings = settings;
        this.topics = topics;
        this.parking = KeyParking.create(listener::parkedKeys);
        this.publisher = publisher;
        this.listener = listener;
        this.database = new Database(settings);
        this.slots = new SlotManager(settings, database);
        this.offsets = new StoredOffsets(settings, database);
        this.router = router;
        EngineProperties.checkPassthrough(settings.debezium()); // refuse bad passthrough now, not in the background
    }

    /**
     * Prepares the slot and publication before returning, so a setup problem a human must fix fails the start
     * with its {@link CdcSetupException}; rescan and streaming continue in the background.
     */
    @Override
    public synchronized void start() {
        if (supervisor != null) {
            throw new IllegalStateException("CDC source already started");
        }
        LOG.info("Starting CDC source: {}", settings);
        pipeline = DeliveryPipeline.start(EngineProperties.delivery(settings, PIPELINE_DEPTH), router, publisher, topics, parking,
                RowStore.jdbc(Acknowledger.forTable(settings.table(), settings.onPublish()), database::open), listener);
        drainer = new ParkedKeyDrainer(settings.table(), database, parking, pipeline, settings.onPoison(),
                EngineProperties.maxBatchSize(settings), EngineProperties.pageBytes(settings));
        drainer.start();
        if (settings.onPublish() == OnPublish.MARK) {
            purger = new RetentionPurger(settings.table(), settings.retention(), settings.purgeInterval(),
                    RetentionPurger.DEFAULT_BATCH_SIZE, settings.relayName(), database::open, () -> !closed);
            purger.start();
        }
        supervisor = new Thread(this::supervise, "outbox-relay-cdc");
        supervisor.start();
        try {
            firstStart.get();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof CdcSetupException setup) {
                close();
                throw setup;
            }
            // Anything else (database unreachable…) is retried by the supervisor and reported as an outage.
        }
    }

    @Override
    public Optional<Throwable> failure() {
        DeliveryPipeline p = pipeline;
        return failure != null ? Optional.of(failure) : p == null ? Optional.empty() : p.failure();
    }

    private void supervise() {
        try {
            superviseEngines();
        } catch (Error e) {
            fatal(e);
        }
    }

    /** Never linger half-alive: the daemon sees failure() and stops the process, so a standby takes over. */
    private synchronized void fatal(Throwable e) {
        if (failure != null) {
            return;
        }
        failure = e;
        LOG.error("The CDC source died; the relay stops", e);
        firstStart.completeExceptionally(e);
    }

    private void superviseEngines() {
        Backoff backoff = Backoff.exponential(Duration.ofSeconds(1), MAX_BACKOFF);
        while (!closed) {
            long delay = backoff.nextDelayMillis();
            try {
                Set<UUID> rescanned = ConcurrentHashMap.newKeySet();
                long startLsn = prepareAndRescan(rescanned);
                backoff.reset();
                delay = backoff.nextDelayMillis();
                runEngine(rescanned, startLsn);
                if (failure != null) {
                    return;
                }
                if (!closed) {
                    LOG.error("Debezium engine stopped unexpectedly; restarting the CDC source in {} ms", delay);
                }
            } catch (CdcSetupException e) {
                LOG.error("CDC setup failed: {}", e.getMessage());
                listener.outage("database setup", e);
                if (!firstStart.completeExceptionally(e)) {
                    sleepQuietly(Duration.ofMillis(delay));
                }
                if (firstStart.isCompletedExceptionally() && !streaming) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            } catch (SQLException | IOException | RuntimeException e) {
                if (closed) {
                    return;
                }
                LOG.warn("CDC source cannot start ({}); retrying in {} ms", e.getMessage(), delay);
                listener.outage("database", e);
                firstStart.completeExceptionally(e);
            }
            streaming = false;
            sleepQuietly(Duration.ofMillis(delay));
        }
    }

    /** Slot first, then the rescan snapshot: every row is in one or the other. Returns the LSN after the rescan. */
    private long prepareAndRescan(Set<UUID> rescanned) throws SQLException, IOException, InterruptedException {
        SlotManager.SlotState state;
        try (Connection c = database.open()) {
            slots.checkAccess(c);
            boolean offsetsExist = offsets.exist();
            state = slots.prepare(c, offsetsExist);
            drainer.parkDeadLetteredKeys(c);
            drainer.parkHeldKeys(c);
            if (state != SlotManager.SlotState.EXISTING && offsetsExist) {
                // Offsets of a dropped slot point into WAL the new slot never saw: start from the new slot.
                offsets.clear();
                LOG.warn("Discarded the stored CDC offsets of relay '{}': they belonged to the lost slot",
                        settings.relayName());
            }
        }
        firstStart.complete(null);
        new Rescanner(settings, database, () -> closed).rescan(pipeline, rescanned);
        try (Connection c = database.open(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), '0/0')::bigint")) {
            rs.next();
            return rs.getLong(1);
        }
    }

    private void runEngine(Set<UUID> rescanned, long startLsn) throws SQLException {
        JdbcOffsetBackingStore.register(settings.relayName(), offsets.table());
        CompletableFuture<Void> done = new CompletableFuture<>();
        CompletableFuture<Long> up = new CompletableFuture<>();
        ChangeHandler handler = new ChangeHandler(pipeline, database, () -> closed, settings.table(),
                rescanned, startLsn);
        this.handler = handler;
        DebeziumEngine<RecordChangeEvent<SourceRecord>> e = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                .using(EngineProperties.build(settings, database))
                .notifying((records, committer) -> {
                    try {
                        handler.handleBatch(records, committer);
                    } catch (Error err) {
                        fatal(err); // whatever the engine then does with it, the relay stops
                        throw err;
                    }
                })
                .using(new DebeziumEngine.ConnectorCallback() {
                    @Override
                    public void pollingStarted() {
                        streaming = true;
                        up.complete(System.nanoTime());
                        LOG.info("CDC source streaming from slot '{}' (publication '{}')", settings.slotName(),
                                settings.publication());
                    }
                })
                .using((success, message, error) -> {
                    streaming = false;
                    Throwable jvmError = error == null ? null : rootError(error);
                    if (jvmError != null && !closed) {
                        fatal(jvmError);
                    } else if (!success && !closed) {
                        LOG.error("Debezium engine failed: {}", message, error);
                        listener.outage("debezium", error);
                    }
                    up.complete(null);
                    done.complete(null);
                })
                .build();
        synchronized (this) {
            // Under the lock that close() sets `closed` with: either close() sees this engine and closes it, or
            // the engine is never run.
            if (closed) {
                return;
            }
            engineUp = up;
            engineDone = done;
            engine = e;
        }
        try {
            e.run(); // returns when the engine stops
            done.join();
        } finally {
            handler.closeConnection();
        }
    }

    /** The {@link Error} in {@code t}'s cause chain, if any: an engine stopped by one must not be restarted. */
    private static Throwable rootError(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof Error) {
                return c;
            }
        }
        return null;
    }

    @Override
    public String problem() {
        DeliveryPipeline p = pipeline;
        return p != null && p.inOutage() ? "kafka unavailable: " + p.outageReason() : null;
    }

    @Override
    public boolean isHealthy() {
        DeliveryPipeline p = pipeline;
        ChangeHandler h = handler;
        return !closed && streaming && p != null && p.isRunning() && !p.inOutage()
                && (h == null || h.silentNanos() < EngineProperties.silenceBound(settings).toNanos());
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        LOG.info("Stopping CDC source");
        if (purger != null) {
            purger.close();
        }
        if (drainer != null) {
            drainer.close(); // parked events stay unsent in the table: the next start's rescan publishes them
        }
        DeliveryPipeline p = pipeline;
        if (p != null) {
            // Settle what Kafka already has while the engine still runs, so its positions get confirmed and a
            // graceful stop causes no duplicates when Kafka is healthy.
            try {
                if (!p.drain(STOP_DRAIN)) {
                    LOG.warn("Stopping with {} unsettled batch(es); they are published again at the next start",
                            p.unsettled());
                }
            } catch (InterruptedException ex) {
                LOG.debug("Stopping before every batch was settled");
            }
        }
        DebeziumEngine<?> e = engine;
        if (e != null) {
            awaitEngineSettled();
            closeEngine(e);
        }
        if (p != null) {
            p.close();
        }
        Thread t = supervisor;
        if (t != null && t != Thread.currentThread()) {
            try {
                t.join(TimeUnit.SECONDS.toMillis(60));
                if (t.isAlive()) {
                    t.interrupt();
                    t.join(TimeUnit.SECONDS.toMillis(10));
                }
            } catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
        publisher.close();
        topics.close();
        streaming = false;
        LOG.info("CDC source stopped");
    }

    /** Lets a starting engine reach steady polling before it is closed (see {@link #engineUp}). */
    private void awaitEngineSettled() {
        try {
            Long pollingSince = engineUp.get(ENGINE_START_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            if (pollingSince != null) {
                long settle = ENGINE_SETTLE.toNanos() - (System.nanoTime() - pollingSince);
                if (settle > 0) {
                    TimeUnit.NANOSECONDS.sleep(settle);
                }
            }
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException stillStarting) {
            LOG.debug("Closing the Debezium engine before it polls");
        }
    }

    private void closeEngine(DebeziumEngine<?> e) {
        // The engine refuses to close while its tasks are starting (short: wait it out) and once it is stopping
        // (then its completion callback runs soon and ends the wait).
        for (int i = 0; i < 600; i++) {
            try {
                e.close();
                return;
            } catch (IllegalStateException notNow) {
                if (engineDone.isDone()) {
                    return;
                }
                sleepQuietly(Duration.ofMillis(100));
            } catch (IOException ex) {
                LOG.warn("Closing the Debezium engine failed: {}", ex.getMessage());
                return;
            }
        }
    }

    private static void sleepQuietly(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
