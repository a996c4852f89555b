package dev.outboxrelay.cdc;

import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvents;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.OffsetDateTime;
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
 * {@link Pipeline}, which hands them to the producer at once; only after every one is settled (acknowledged and
 * marked, or dead-lettered), and after every earlier batch, are the batch's records marked processed, so the
 * offset, and with it the slot's confirmed LSN, never passes an unacknowledged event. Meanwhile Debezium hands
 * over the next batch. Heartbeats, logical messages and anything else are settled without publishing; they only
 * move the position.
 */
final class ChangeHandler implements DebeziumEngine.ChangeConsumer<RecordChangeEvent<SourceRecord>> {

    private static final Logger LOG = LoggerFactory.getLogger(ChangeHandler.class);
    /** The columns the stream reads; Debezium converts only these. */
    static final String[] COLUMNS = {"id", "aggregate_type", "aggregate_id", "event_type", "payload", "headers",
        "created_at"};

    private final Pipeline pipeline;
    private final Database database;
    private final BooleanSupplier closing;
    private final String filterSql;
    /** Ids the rescan published in this run; the stream skips them once. */
    private final Set<UUID> rescanned;
    /** Records at or below this LSN may have been published already (before a restart, or by the rescan). */
    private final long startLsn;

    /** For the duplicate filter only; used by the engine thread. */
    private Connection connection;

    ChangeHandler(Pipeline pipeline, Database database, BooleanSupplier closing, String quotedTable,
                  Set<UUID> rescanned, long startLsn) {
        this.pipeline = pipeline;
        this.database = database;
        this.closing = closing;
        this.filterSql = "SELECT id FROM " + quotedTable + " WHERE id = ANY(?)"
                + " AND (sent_at IS NOT NULL OR dead_lettered_at IS NOT NULL)";
        this.rescanned = rescanned;
        this.startLsn = startLsn;
    }

    @Override
    public void handleBatch(List<RecordChangeEvent<SourceRecord>> records,
                            DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
            throws InterruptedException {
        if (closing.getAsBoolean()) {
            return; // not marked processed: replayed at the next start
        }
        List<BatchPublisher.Item> items = new ArrayList<>(records.size());
        List<UUID> maybeDone = null;
        int skipped = 0;
        for (RecordChangeEvent<SourceRecord> change : records) {
            SourceRecord record = change.record();
            Struct after = insertedRow(record);
            if (after == null) {
                continue;
            }
            BatchPublisher.Item item = item(after);
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
        int skippedTotal = skipped;
        pipeline.submit(items, last -> {
            for (RecordChangeEvent<SourceRecord> change : records) {
                committer.markProcessed(change);
            }
            if (last) {
                committer.markBatchFinished();
            }
            LOG.debug("Batch of {} change record(s) settled: published {} event(s), skipped {} already published",
                    records.size(), published, skippedTotal);
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

    private static BatchPublisher.Item item(Struct row) {
        UUID id = UUID.fromString(row.getString("id"));
        try {
            String created = row.getString("created_at");
            return BatchPublisher.Item.of(OutboxEvents.fromRow(id, row.getString("aggregate_type"),
                    row.getString("aggregate_id"), row.getString("event_type"), row.getString("payload"),
                    row.getString("headers"), OffsetDateTime.parse(created).toInstant()));
        } catch (MalformedEventException e) {
            return BatchPublisher.Item.malformed(id, e.getMessage());
        }
    }

    private static long lsn(SourceRecord record) {
        Object lsn = record.sourceOffset() == null ? null : record.sourceOffset().get("lsn");
        return lsn instanceof Number n ? n.longValue() : Long.MAX_VALUE;
    }

    /** Rows already marked sent or dead-lettered (by an earlier run or by poll mode): they are not sent again. */
    private Set<UUID> alreadySettled(List<UUID> ids) throws InterruptedException {
        while (true) {
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
                Thread.sleep(1000);
            }
        }
    }
}
