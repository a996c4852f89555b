package dev.outboxrelay.connect;

import dev.outboxrelay.core.acknowledge.Acknowledger;
import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import dev.outboxrelay.core.acknowledge.RetentionPurger;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.InstanceOptions;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.core.delivery.Backoff;
import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.core.delivery.KeyParking;
import dev.outboxrelay.core.delivery.OnPoison;
import dev.outboxrelay.core.delivery.RowStore;
import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.poll.PollOptions;
import dev.outboxrelay.poll.UnsentRows;
import dev.outboxrelay.schema.AdvisoryLocks;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.source.SourceTask;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One shard of the outbox table: reads its unsent rows as the poll source does ({@link UnsentRows}: seq order from
 * the commit horizon's floor, so a late commit is never skipped), routes them with the daemon's router and format,
 * and marks (or deletes) a row only once Connect reports, in {@link #commitRecord}, that Kafka acknowledged it. A row
 * Connect could not deliver ({@code errors.tolerance=all} hands it back without metadata) is charged an attempt and
 * its key is held back for a retry, then dead-lettered at {@code max-attempts}; a malformed row is dead-lettered at
 * once. Only the task thread touches the database; {@code commitRecord} just queues the outcome.
 */
public final class OutboxSourceTask extends SourceTask {

    private static final Logger LOG = LoggerFactory.getLogger(OutboxSourceTask.class);
    private static final long STOP_WAIT_SECONDS = 5;

    private final InFlight inFlight = new InFlight();
    private final KeyParking parking = KeyParking.create();
    private RelayConfig config;
    private UnsentRows.Shard shard;
    private OutboxTable table;
    private EventRouter router;
    private ConnectionFactory connections;
    private Acknowledger.OnPublish onPublish;
    private OnPoison onPoison;
    private int maxAttempts;
    private int batchSize;
    private int maxInFlightRows;
    private long maxInFlightBytes;
    private Duration pollInterval;
    private Duration standbyInterval;
    private boolean exactlyOnce;
    private String instance;
    private Map<String, String> partition;
    private Backoff databaseBackoff;
    private RowStore rows;
    private Settlement settlement;
    private RetentionPurger purger;
    private Connection session;
    private UnsentRows reader;
    private boolean standbyAnnounced;
    private String lastProblem;
    /** Held by poll(); stop() takes it to close the session when no poll is using it. */
    private final java.util.concurrent.locks.ReentrantLock pollLock = new java.util.concurrent.locks.ReentrantLock();
    private boolean closed;
    private volatile boolean stopping;
    private volatile boolean active;

    @Override
    public String version() {
        return Version.get();
    }

    @Override
    public void start(Map<String, String> props) {
        config = ConnectorOptions.resolve(props);
        shard = new UnsentRows.Shard(Integer.parseInt(props.get(OutboxSourceConnector.TASK_INDEX)),
                Integer.parseInt(props.get(OutboxSourceConnector.TASK_COUNT)));
        table = DatabaseOptions.table(config);
        router = KafkaOptions.router(config);
        connections = ConnectionFactory.fromConfig(config).withDefaults(ConnectionFactory.sessionDefaults());
        onPublish = config.get(KafkaOptions.ON_PUBLISH);
        onPoison = config.get(KafkaOptions.ON_POISON);
        maxAttempts = config.get(KafkaOptions.MAX_ATTEMPTS);
        batchSize = config.get(PollOptions.BATCH_SIZE);
        maxInFlightRows = batchSize * config.get(PollOptions.PIPELINE_DEPTH);
        maxInFlightBytes = KafkaOptions.inFlightBytes(config); // per task: a worker's tasks share its heap
        pollInterval = config.get(PollOptions.POLL_INTERVAL);
        standbyInterval = config.get(InstanceOptions.STANDBY_INTERVAL);
        exactlyOnce = OutboxSourceConnector.exactlyOnceRequired(props);
        instance = AdvisoryLocks.instanceName(config.get(InstanceOptions.RELAY_NAME), "connect-" + shard.index());
        partition = Records.partition(table, shard);
        databaseBackoff = Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(30));
        rows = RowStore.jdbc(Acknowledger.forTable(table, onPublish), this::markingSession);
        settlement = new Settlement(inFlight, parking, rows, maxAttempts);
        if (!"all".equals(props.get("errors.tolerance"))) {
            LOG.warn("errors.tolerance is not 'all': a record Kafka refuses (missing topic, too large) fails task {}"
                    + " and holds back its shard of {} until the task is restarted, instead of being retried and"
                    + " dead-lettered on its own", shard, table);
        }
        if (shard.index() == 0 && onPublish == Acknowledger.OnPublish.MARK) {
            purger = new RetentionPurger(table, config.get(KafkaOptions.RETENTION),
                    config.get(KafkaOptions.PURGE_INTERVAL), RetentionPurger.DEFAULT_BATCH_SIZE, instance,
                    connections::open, () -> active && !stopping);
            purger.start();
        }
        LOG.info("Started outbox-relay task for shard {} of {}{}", shard, table, exactlyOnce ? " (exactly-once)" : "");
    }

    @Override
    public List<SourceRecord> poll() throws InterruptedException {
        // stop() runs on another thread while a poll may be using the session: whoever holds the lock when the task
        // is stopping closes the session (and with it the shard's locks, which the task's next owner waits for).
        pollLock.lock();
        try {
            return stopping ? null : pollLocked();
        } finally {
            if (stopping) {
                closeAll();
            }
            pollLock.unlock();
        }
    }

    private List<SourceRecord> pollLocked() throws InterruptedException {
        try {
            if (reader == null && !becomeActive()) {
                return null;
            }
            settlement.settle();
            if (inFlight.size() >= maxInFlightRows || inFlight.bytes() >= maxInFlightBytes) {
                inFlight.awaitOutcome(100);
                return null;
            }
            UnsentRows.Batch batch = reader.next(inFlight.seqs(), settlement.parkedKeys(),
                    Math.min(batchSize, maxInFlightRows - inFlight.size()),
                    Math.max(1, maxInFlightBytes - inFlight.bytes()));
            databaseRecovered();
            if (batch.isEmpty()) {
                if (inFlight.size() == 0) {
                    reader.awaitInserts((int) Math.max(1, pollInterval.toMillis()));
                } else {
                    inFlight.awaitOutcome(Math.max(1, pollInterval.toMillis()));
                }
                return null;
            }
            return records(batch);
        } catch (SQLException e) {
            if (!stopping) {
                cannotRead(e.toString());
            }
            return null;
        }
    }

    /** One WARN per distinct reason; the session is replaced after a backoff, as the daemon does. */
    private void cannotRead(String problem) throws InterruptedException {
        if (!problem.equals(lastProblem)) {
            lastProblem = problem;
            LOG.warn("Cannot read shard {} of {}: {}; rows not acknowledged yet will be read again, retrying with"
                    + " backoff", shard, table, problem);
        }
        closeSession();
        TimeUnit.MILLISECONDS.sleep(databaseBackoff.nextDelayMillis());
    }

    private void databaseRecovered() {
        databaseBackoff.reset();
        if (lastProblem != null) {
            LOG.info("Reading shard {} of {} again", shard, table);
            lastProblem = null;
        }
    }

    /** Opens the reading session and takes the shard's locks; false (after a pause) while another task holds them. */
    private boolean becomeActive() throws SQLException, InterruptedException {
        session = connections.open();
        session.setAutoCommit(true);
        UnsentRows r = UnsentRows.open(session, table, onPoison, shard, instance);
        String problem = r.sessionProblem(onPublish == Acknowledger.OnPublish.DELETE);
        if (problem != null) {
            // A standby server, a missing table or privilege: not passing by reconnecting at once, but not for good
            // either (failover, migrate, GRANT); retried with backoff like the daemon, not a failed task.
            r.close();
            cannotRead(problem);
            return false;
        }
        if (!AdvisoryLocks.tryShardLocks(session, table, shard.index(), shard.count())) {
            if (!standbyAnnounced) {
                LOG.info("Shard {} of {} is held by another task, by a task of an earlier tasks.max, or a relay"
                        + " daemon holds the table; standing by", shard, table);
                standbyAnnounced = true;
            }
            r.close();
            closeSession();
            TimeUnit.MILLISECONDS.sleep(standbyInterval.toMillis());
            return false;
        }
        standbyAnnounced = false;
        if (exactlyOnce) {
            markCommittedBefore();
        }
        r.start();
        reader = r;
        active = true;
        LOG.info("Reading shard {} of {}", shard, table);
        return true;
    }

    /**
     * Exactly-once: the rows the last committed transaction covered and that were not marked yet (the task died
     * between Kafka's commit and the mark) are marked now, not published again.
     */
    private void markCommittedBefore() throws InterruptedException {
        Map<String, Object> offset = context.offsetStorageReader().offset(partition);
        Object unmarked = offset == null ? null : offset.get(Records.UNMARKED);
        if (offset == null) {
            LOG.info("No committed position for shard {} of {} yet", shard, table);
        }
        if (unmarked instanceof String s && !s.isEmpty()) {
            List<UUID> ids = new ArrayList<>();
            for (String id : s.split(",")) {
                ids.add(UUID.fromString(id));
            }
            rows.acknowledge(ids);
            LOG.info("Marked {} row(s) of shard {} that Kafka had committed before this task started", ids.size(),
                    shard);
        }
    }

    private List<SourceRecord> records(UnsentRows.Batch batch) throws InterruptedException {
        List<Failure> malformed = new ArrayList<>();
        List<Pending> sent = new ArrayList<>(batch.items().size());
        for (int i = 0; i < batch.items().size(); i++) {
            Item item = batch.items().get(i);
            if (parking.parkIfHeld(item.key())) {
                continue; // a row before it in this batch failed: it waits in the table
            }
            String reason = item.malformedReason();
            org.apache.kafka.clients.producer.ProducerRecord<byte[], byte[]> record = null;
            if (reason == null) {
                try {
                    record = router.route(item.event());
                } catch (MalformedEventException e) {
                    reason = e.getMessage();
                }
            }
            if (reason != null) {
                malformed.add(new Failure(item.id(), reason));
                parking.park(item.key(), KeyParking.Reason.ROW_RETRY, "malformed row");
                continue;
            }
            sent.add(new Pending(batch.seqs()[i], item, record));
        }
        settlement.deadLetter(malformed);
        for (Pending p : sent) {
            inFlight.add(p.seq(), p.item().id(), p.item().key(), p.item().bytes());
        }
        String unmarked = exactlyOnce ? inFlight.ids() : null;
        List<SourceRecord> records = new ArrayList<>(sent.size());
        for (Pending p : sent) {
            Map<String, Object> offset = unmarked == null ? Map.of(Records.SEQ, p.seq())
                    : Map.of(Records.SEQ, p.seq(), Records.UNMARKED, unmarked);
            records.add(Records.of(p.record(), partition, offset));
        }
        LOG.debug("Shard {}: {} record(s) to Connect, {} in flight", shard, records.size(), inFlight.size());
        return records;
    }

    private record Pending(long seq, Item item, org.apache.kafka.clients.producer.ProducerRecord<byte[], byte[]> record) {
    }

    /** Called by Connect once Kafka acknowledged the record (metadata) or it was skipped (null). */
    @Override
    public void commitRecord(SourceRecord record, RecordMetadata metadata) {
        inFlight.outcome(Records.seqOf(record), metadata != null);
    }

    private Connection markingSession() throws SQLException {
        Connection c = connections.open();
        try (var st = c.prepareStatement("SELECT set_config('application_name', ?, false)")) {
            st.setString(1, instance);
            st.execute();
            return c;
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    private void closeSession() {
        active = false;
        if (reader != null) {
            reader.close();
            reader = null;
        }
        if (session != null) {
            try {
                session.close(); // ends the session, and with it the shard's locks
            } catch (SQLException e) {
                LOG.debug("Closing the reading session: {}", e.toString());
            }
            session = null;
        }
    }

    @Override
    public void stop() {
        stopping = true;
        LOG.info("Stopping outbox-relay task for shard {} of {}", shard, table);
        try {
            if (pollLock.tryLock(STOP_WAIT_SECONDS, TimeUnit.SECONDS)) {
                try {
                    closeAll();
                } finally {
                    pollLock.unlock();
                }
            } // else the poll still running closes everything as it returns
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void closeAll() {
        if (closed) {
            return;
        }
        closed = true;
        closeSession();
        if (purger != null) {
            purger.close();
        }
        if (rows != null) {
            rows.close();
        }
    }
}
