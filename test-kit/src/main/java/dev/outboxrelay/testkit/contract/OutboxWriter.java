package dev.outboxrelay.testkit.contract;

import dev.outboxrelay.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

/**
 * Writes outbox rows the way an application does: plain SQL on the contract columns only
 * ({@code id, aggregate_type, aggregate_id, event_type, payload, headers}); everything else is defaulted.
 */
public final class OutboxWriter {

    /** One row to write; {@code payload} and {@code headers} are JSON text or {@code null}. */
    public record Row(UUID id, String aggregateType, String aggregateId, String eventType, String payload,
                      String headers) {

        /** A row with a fresh id, a small JSON payload holding {@code n}, and no headers. */
        public static Row of(String aggregateType, String aggregateId, int n) {
            return new Row(UUID.randomUUID(), aggregateType, aggregateId, "Happened",
                    "{\"key\": \"" + aggregateId + "\", \"n\": " + n + "}", null);
        }
    }

    private final TestDatabase database;
    private final String table;

    public OutboxWriter(TestDatabase database, String table) {
        this.database = database;
        this.table = table;
    }

    /** The database written to. */
    public TestDatabase database() {
        return database;
    }

    /** Rows the relay has still to publish: neither sent nor dead-lettered. */
    public long unsent() {
        return database.queryLong("SELECT count(*) FROM " + table
                + " WHERE sent_at IS NULL AND dead_lettered_at IS NULL");
    }

    /** Inserts rows in one transaction (on a reused connection); returns their ids in order. */
    public List<String> insert(List<Row> rows) {
        try {
            return database.inTransaction(c -> insert(c, rows));
        } catch (SQLException e) {
            throw new IllegalStateException("insert into " + table + " failed: " + e.getMessage(), e);
        }
    }

    /** Inserts rows on {@code c} in its current transaction (the caller commits); returns their ids in order. */
    public List<String> insert(Connection c, List<Row> rows) throws SQLException {
        List<String> ids = new ArrayList<>(rows.size());
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + table
                + " (id, aggregate_type, aggregate_id, event_type, payload, headers)"
                + " VALUES (?, ?, ?, ?, ?::jsonb, ?::jsonb)")) {
            for (Row r : rows) {
                ps.setObject(1, r.id());
                ps.setString(2, r.aggregateType());
                ps.setString(3, r.aggregateId());
                ps.setString(4, r.eventType());
                ps.setString(5, r.payload());
                ps.setString(6, r.headers());
                ps.addBatch();
                ids.add(r.id().toString());
            }
            ps.executeBatch();
        }
        return ids;
    }
}
