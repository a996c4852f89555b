package dev.outboxrelay.cdc;

import dev.outboxrelay.core.delivery.Backoff;
import dev.outboxrelay.core.delivery.DeliveryPipeline;
import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.core.event.OutboxEvents;
import dev.outboxrelay.schema.OutboxSql;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.schema.TableLayout;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Debezium's batch consumer: turns the outbox inserts of a batch into events and submits them to the
 * {@link DeliveryPipeline}, which hands them to the producer at once; only after every one is settled (acknowledged and
 * marked, or dead-lettered), and after every earlier batch, are the batch's records marked processed, so the
 * offset, and with it the slot's confirmed LSN, never passes an unacknowledged event. Meanwhile Debezium hands
 * over the next batch. Heartbeats, logical messages and anything else are settled without publishing; they only
 * move the position.
 */
final class ChangeHandler implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeHandler.class);
    /**
     * The columns the stream reads: Debezium converts only these and, on PostgreSQL 15+, the publication sends only
     * these (schema migration 5 lists them too; {@code SlotManager} refuses a list without one). Not
     * {@code created_at}: Debezium's conversion to an ISO string and our second parse of it cost more than the rest
     * of our per-event work; the commit time in the source block serves the lag metric instead.
     */
    /** The table's names of the columns the stream reads ({@link TableLayout#streamedColumns}). */
    static List<String> columns(TableLayout layout) {
        return layout.streamedColumns();
    }

    private final DeliveryPipeline pipeline;
    private final Database database;
    private final BooleanSupplier closing;
    private final String filterSql;
    private final String id;
    private final String aggregateType;
    private final String aggregateId;
    private final String eventType;
    private final String payload;
    private final String headers;
    private final List<String> extras;
    /** Ids the rescan published in this run; the stream skips them once. */
    private final Set<UUID> rescanned;
    /** Records at or below this LSN may have been published already (before a restart, or by the rescan). */
    private final long startLsn;

    /** For the duplicate filter only; used by the engine thread. */
    private Connection connection;

    ChangeHandler(DeliveryPipeline pipeline, Database database, BooleanSupplier closing, OutboxTable table,
                  Set<UUID> rescanned, long startLsn) {
        this.pipeline = pipeline;
        this.database = database;
        this.closing = closing;
        this.filterSql = OutboxSql.forTable(table).settledAmong();
        TableLayout layout = table.layout();
        this.id = layout.name(TableLayout.Column.ID);
        this.aggregateType = layout.name(TableLayout.Column.AGGREGATE_TYPE);
        this.aggregateId = layout.name(TableLayout.Column.AGGREGATE_ID);
        this.eventType = layout.name(TableLayout.Column.EVENT_TYPE);
        this.payload = layout.name(TableLayout.Column.PAYLOAD);
        this.headers = layout.name(TableLayout.Column.HEADERS);
        this.extras = layout.extras();
        this.rescanned = rescanned;
        this.startLsn = startLsn;
    }

    /** When the last batch was handled (or this handler made); 0 while one is being handled. */
    private volatile long idleSince = System.nanoTime();

    /**
     * How long Debezium has handed over nothing (heartbeats count; 0 while a batch is being handled). A live
     * stream hands over a heartbeat every {@code heartbeat.interval.ms} even with no outbox row written, so a long
     * silence means the stream is stuck or its connection is gone, which Debezium retries inside its engine
     * without telling anyone.
     */
    long silentNanos() {
        long since = idleSince;
        return since == 0 ? 0 : System.nanoTime() - since;
    }

    @Override
    public void handleBatch(List<RecordChangeEvent<SourceRecord>> records,
                            DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
            throws InterruptedException {
        idleSince = 0;
        try {
            handle(records, committer);
        } finally {
            idleSince = System.nanoTime();
        }
    }

    private void handle(List<RecordChangeEvent<SourceRecord>> records,
                        DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
            throws InterruptedException {
        if (closing.getAsBoolean()) {
            return; // not marked processed: replayed at the next start
        }
        List<Item> items = new ArrayList<>(records.size());
        List<UUID> maybeDone = null;
        int skipped = 0;
        for (RecordChangeEvent<SourceRecord> change : records) {
            SourceRecord record = change.record();
            Struct after = insertedRow(record);
            if (after == null) {
                continue;
            }
            Item item = item(after, committedAt(record));
            if (!rescanned.isEmpty() && rescanned.remove(item.id())) {
                skipped++;
                continue;
            }
            if (lsn(record) <= startLsn) {
                if (maybeDone == null) {
                    maybeDone = new ArrayList<>();
                }
                maybeDone.add(item.id());
            }
            items.add(item);
        }
        if (maybeDone != null) {
            Set<UUID> done = alreadySettled(maybeDone);
            if (!done.isEmpty()) {
                items.removeIf(it -> done.contains(it.id()));
                skipped += done.size();
            }
        }
        int published = items.size();
        int size = records.size();
        int skippedTotal = skipped;
        // Only the batch's last record is kept for the commit: the committer stores offsets per source partition
        // and the last one marked wins (the Postgres connector has a single partition whose offsets only move
        // forward), so marking it alone does what marking each record did, while the pipeline no longer keeps
        // every record of up to five batches alive until they are settled (young-GC copying and heap).
        RecordChangeEvent<SourceRecord> lastRecord = records.isEmpty() ? null : records.get(records.size() - 1);
        pipeline.submit(items, false, last -> {
            if (lastRecord != null) {
                committer.markProcessed(lastRecord);
            }
            if (last) {
                committer.markBatchFinished();
            }
            LOG.debug("Batch of {} change record(s) settled: published {} event(s), skipped {} already published",
                    size, published, skippedTotal);
        });
    }

    void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // already broken
            }
            connection = null;
        }
    }

    /** The {@code after} image of an insert into the outbox table, or {@code null} for any other record. */
    private static Struct insertedRow(SourceRecord record) {
        if (!(record.value() instanceof Struct value) || value.schema().field("op") == null
                || value.schema().field("after") == null) {
            return null;
        }
        String op = value.getString("op");
        if (!"c".equals(op) && !"r".equals(op)) {
            return null; // updates and deletes: only with a publication that publishes them; never relayed
        }
        return value.getStruct("after");
    }

    private Item item(Struct row, Instant committedAt) {
        return Item.fromColumns(UUID.fromString(row.getString(id)), row.getString(aggregateType),
                row.getString(aggregateId), row.getString(eventType), OutboxEvents.payload(row.get(payload)),
                headers == null ? null : row.getString(headers), committedAt, extras(row));
    }

    private java.util.Map<String, Object> extras(Struct row) {
        if (extras.isEmpty()) {
            return null;
        }
        java.util.Map<String, Object> m = new java.util.LinkedHashMap<>();
        for (String c : extras) {
            m.put(c, OutboxEvents.column(row.get(c)));
        }
        return m;
    }

    /**
     * When the row's transaction committed ({@code source.ts_ms}), the start of its end-to-end lag in CDC mode:
     * the moment the row became visible to the relay, at most the transaction's length after {@code created_at}.
     */
    private static Instant committedAt(SourceRecord record) {
        if (record.value() instanceof Struct value && value.schema().field("source") != null) {
            Struct source = value.getStruct("source");
            if (source != null && source.schema().field("ts_ms") != null && source.get("ts_ms") instanceof Long ms) {
                return Instant.ofEpochMilli(ms);
            }
        }
        return Instant.now();
    }

    private static long lsn(SourceRecord record) {
        Object lsn = record.sourceOffset() == null ? null : record.sourceOffset().get("lsn");
        return lsn instanceof Number n ? n.longValue() : Long.MAX_VALUE;
    }

    /** Rows already marked sent or dead-lettered (by an earlier run or by poll mode): they are not sent again. */
    private Set<UUID> alreadySettled(List<UUID> ids) throws InterruptedException {
        Backoff backoff = Backoff.exponential(Duration.ofMillis(200), Duration.ofSeconds(10));
        while (true) {
            if (closing.getAsBoolean()) {
                throw new InterruptedException("relay is closing"); // the batch is not confirmed: replayed later
            }
            try {
                if (connection == null || connection.isClosed()) {
                    connection = database.open();
                }
                Connection c = connection;
                try (PreparedStatement ps = c.prepareStatement(filterSql)) {
                    Array array = c.createArrayOf("uuid", ids.toArray());
                    ps.setArray(1, array);
                    Set<UUID> done = new HashSet<>();
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            done.add(rs.getObject(1, UUID.class));
                        }
                    }
                    return done;
                }
            } catch (SQLException e) {
                closeConnection();
                LOG.warn("Cannot check which streamed rows were already published ({}); retrying", e.getMessage());
                Thread.sleep(backoff.nextDelayMillis());
            }
        }
    }
}
