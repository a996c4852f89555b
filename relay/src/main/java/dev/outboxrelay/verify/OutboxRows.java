package dev.outboxrelay.verify;

import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.event.OutboxEvents;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.OutboxSql;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** The outbox rows of the audit window, in seq order, each routed to its topic. Holds no payload. */
final class OutboxRows {

    /** One row and how often its id was seen on its topic. */
    static final class Row {
        final String id;
        final String aggregateType;
        final String aggregateId;
        final long seq;
        final Instant createdAt;
        final boolean sent;
        final boolean deadLettered;
        final String lastError;
        final String topic;
        int seen;

        Row(ResultSet rs, String topic) throws SQLException {
            this.id = rs.getString("id");
            this.aggregateType = rs.getString("aggregate_type");
            this.aggregateId = rs.getString("aggregate_id");
            this.seq = rs.getLong("seq");
            this.createdAt = rs.getTimestamp("created_at").toInstant();
            this.sent = rs.getTimestamp("sent_at") != null;
            this.deadLettered = rs.getTimestamp("dead_lettered_at") != null;
            this.lastError = rs.getString("last_error");
            this.topic = topic;
        }

        AuditReport.Row describe() {
            return new AuditReport.Row(id, aggregateType, aggregateId, seq, createdAt, lastError);
        }
    }

    final Instant since;
    final List<Row> rows = new ArrayList<>();
    final Map<String, Integer> indexById = new HashMap<>();
    long unroutable;

    private OutboxRows(Instant since) {
        this.since = since;
    }

    /** Reads the rows created within {@code window} of the database's clock, so skew with this host does not matter. */
    static OutboxRows load(Connection c, OutboxTable table, EventRouter router, Duration window)
            throws SQLException {
        Instant since;
        try (PreparedStatement ps = c.prepareStatement("SELECT now() - (? * interval '1 millisecond')")) {
            ps.setLong(1, window.toMillis());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                since = rs.getTimestamp(1).toInstant();
            }
        }
        OutboxRows result = new OutboxRows(since);
        Map<String, String> topicByType = new HashMap<>();
        c.setAutoCommit(false); // a cursor, so a large outbox is streamed rather than loaded at once
        try (PreparedStatement ps = c.prepareStatement(OutboxSql.forTable(table).auditSince())) {
            ps.setFetchSize(10_000);
            ps.setTimestamp(1, Timestamp.from(since));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    String topic = route(router, rs, topicByType, table.layout().extras());
                    if (topic == null) {
                        result.unroutable++;
                    }
                    Row row = new Row(rs, topic);
                    result.indexById.put(row.id, result.rows.size());
                    result.rows.add(row);
                }
            }
        } finally {
            c.rollback();
        }
        return result;
    }

    private static String route(EventRouter router, ResultSet rs, Map<String, String> cache, List<String> extras)
            throws SQLException {
        String aggregateType = rs.getString("aggregate_type");
        String eventType = rs.getString("event_type");
        Map<String, Object> columns = new HashMap<>();
        StringBuilder cacheKey = new StringBuilder(aggregateType).append('\u0000').append(eventType);
        for (String c : extras) {
            Object v = OutboxEvents.column(rs.getObject(c));
            columns.put(c, v);
            cacheKey.append('\u0000').append(v);
        }
        // The template may use ${eventType} and other columns; cache per their values (unroutable ones too).
        String key = cacheKey.toString();
        if (!cache.containsKey(key)) {
            cache.put(key, topic(router, rs, aggregateType, eventType, columns));
        }
        return cache.get(key);
    }

    private static String topic(EventRouter router, ResultSet rs, String aggregateType, String eventType,
                                Map<String, Object> columns) {
        try {
            return router.route(new OutboxEvent(UUID.fromString(rs.getString("id")), aggregateType,
                    rs.getString("aggregate_id"), eventType, null, Map.of(), Instant.EPOCH, null, columns)).topic();
        } catch (MalformedEventException | SQLException e) {
            return null;
        }
    }
}
