package dev.outboxrelay.client;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.UUID;

/**
 * Appends events to the outbox table on the application's own connection, inside its transaction: the event exists
 * if and only if the transaction commits. It never commits, rolls back or closes the connection.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.forTable("public.outbox");   // once; thread-safe
 * try (Connection c = dataSource.getConnection()) {
 *     c.setAutoCommit(false);
 *     orders.markPaid(c, orderId);                      // the business change
 *     outbox.append(c, Event.builder("Order", orderId, "OrderPaid").payload(json).build());
 *     c.commit();
 * }
 * }</pre>
 *
 * Ids are UUIDv7 unless the event carries its own ({@link Event.Builder#id}, an idempotency key: an id already in
 * the table is not written again). When the OpenTelemetry API is on the class path and a span is current, its W3C
 * {@code traceparent} is added as a header unless the event has one.
 */
public interface Outbox {

    /**
     * The writer for {@code table} ({@code outbox}, {@code schema.table}; unquoted names are folded to lower case
     * as PostgreSQL does), with the relay's columns.
     *
     * @throws IllegalArgumentException when {@code table} is not a valid name
     */
    static Outbox forTable(String table) {
        return forTable(table, Columns.relay());
    }

    /**
     * The writer for {@code table} laid out as {@code columns} (e.g. {@link Columns#debezium()} for a Debezium
     * outbox table the relay adopted). The payload goes into whatever type the payload column has (jsonb, json,
     * text); without a headers column, events with headers are refused and no trace context is written.
     *
     * @throws IllegalArgumentException when {@code table} is not a valid name
     */
    static Outbox forTable(String table, Columns columns) {
        return new JdbcOutbox(TableName.parse(table), columns);
    }

    /**
     * Appends one event in the connection's current transaction and returns its id.
     *
     * @throws IllegalStateException when the connection is in auto-commit mode (the event would be committed on its
     *                               own, outside the business transaction)
     * @throws SQLException          from the database, e.g. a payload that is not JSON
     */
    UUID append(Connection connection, Event event) throws SQLException;

    /**
     * Appends several events in one round trip, in order, in the connection's current transaction; returns their
     * ids in the same order (events whose id was already in the table are among them, not written again).
     */
    List<UUID> appendAll(Connection connection, List<Event> events) throws SQLException;
}
