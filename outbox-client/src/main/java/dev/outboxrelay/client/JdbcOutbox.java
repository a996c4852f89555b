package dev.outboxrelay.client;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Types;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/** {@link Outbox} on the relay's table: one INSERT, batched for several events. */
final class JdbcOutbox implements Outbox {

    /** Whether the application has the OpenTelemetry API; checked once, without loading our class that uses it. */
    private static final boolean OPENTELEMETRY = present("io.opentelemetry.api.trace.Span");
    private static final String TRACEPARENT = "traceparent";

    private final TableName table;
    private final boolean headers;
    private final String insert;

    JdbcOutbox(TableName table, Columns columns) {
        this.table = table;
        this.headers = columns.hasHeaders();
        // ON CONFLICT DO NOTHING: an id already there (the event's idempotency key) is not written again. The
        // payload is an untyped parameter: PostgreSQL reads it as the column's type (jsonb checks it is JSON).
        this.insert = "INSERT INTO " + table.quoted() + " (" + columns.quoted("id") + ", "
                + columns.quoted("aggregate-type") + ", " + columns.quoted("aggregate-id") + ", "
                + columns.quoted("event-type") + ", " + columns.quoted("payload")
                + (headers ? ", " + columns.quoted("headers") + ") VALUES (?, ?, ?, ?, ?, ?::jsonb)"
                        : ") VALUES (?, ?, ?, ?, ?)") + " ON CONFLICT DO NOTHING";
    }

    @Override
    public UUID append(Connection connection, Event event) throws SQLException {
        return appendAll(connection, List.of(event)).get(0);
    }

    @Override
    public List<UUID> appendAll(Connection connection, List<Event> events) throws SQLException {
        if (connection.getAutoCommit()) {
            throw new IllegalStateException("the connection is in auto-commit mode: the event would be committed on"
                    + " its own, not with your transaction; append inside one (setAutoCommit(false), @Transactional,"
                    + " DSLContext.transaction)");
        }
        List<UUID> ids = new ArrayList<>(events.size());
        if (events.isEmpty()) {
            return ids;
        }
        String traceparent = OPENTELEMETRY && headers ? OpenTelemetryTrace.currentTraceparent() : null;
        if (!headers) {
            for (Event e : events) {
                if (!e.headers().isEmpty()) {
                    throw new IllegalArgumentException("table " + table + " has no headers column: event headers "
                            + e.headers().keySet() + " cannot be written");
                }
            }
        }
        try (PreparedStatement ps = connection.prepareStatement(insert)) {
            for (Event e : events) {
                UUID id = e.id() != null ? e.id() : UuidV7.next();
                ids.add(id);
                ps.setObject(1, id);
                ps.setString(2, e.aggregateType());
                ps.setString(3, e.aggregateId());
                ps.setString(4, e.eventType());
                ps.setObject(5, e.payload(), Types.OTHER);
                if (headers) {
                    ps.setString(6, headersJson(e.headers(), traceparent));
                }
                ps.addBatch();
            }
            ps.executeBatch();
        }
        return ids;
    }

    /** The headers as a JSON object of strings, the trace context added unless set; null when there are none. */
    static String headersJson(Map<String, String> headers, String traceparent) {
        boolean addTrace = traceparent != null && headers.keySet().stream().noneMatch(TRACEPARENT::equalsIgnoreCase);
        if (headers.isEmpty() && !addTrace) {
            return null;
        }
        StringBuilder json = new StringBuilder("{");
        headers.forEach((k, v) -> member(json, k, v));
        if (addTrace) {
            member(json, TRACEPARENT, traceparent);
        }
        return json.append('}').toString();
    }

    private static void member(StringBuilder json, String name, String value) {
        if (json.length() > 1) {
            json.append(',');
        }
        quote(json, name).append(':');
        quote(json, value);
    }

    private static StringBuilder quote(StringBuilder json, String s) {
        json.append('"');
        for (int i = 0; i < s.length(); i++) {
            char ch = s.charAt(i);
            switch (ch) {
                case '"' -> json.append("\\\"");
                case '\\' -> json.append("\\\\");
                case '\n' -> json.append("\\n");
                case '\r' -> json.append("\\r");
                case '\t' -> json.append("\\t");
                default -> {
                    if (ch < 0x20) {
                        json.append(String.format("\\u%04x", (int) ch));
                    } else {
                        json.append(ch);
                    }
                }
            }
        }
        return json.append('"');
    }

    private static boolean present(String className) {
        try {
            Class.forName(className, false, JdbcOutbox.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "Outbox[" + table + "]";
    }
}
