package dev.outboxrelay.daemon;

import dev.outboxrelay.schema.OutboxSql;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * What the outbox table says about the relay's health, from one cheap statement served by the partial
 * indexes on unsent rows and on live dead letters. Shared by the daemon's gauges and {@code status}.
 *
 * @param backlog                 unsent, live rows (neither sent nor dead-lettered)
 * @param oldestUnsentAgeSeconds  age of the oldest of them (by {@code seq}), 0 when there is none
 * @param deadLetters             dead letters not discarded by an operator
 */
public record OutboxStats(long backlog, double oldestUnsentAgeSeconds, long deadLetters) {

    /** Samples {@code table}. */
    public static OutboxStats sample(Connection c, OutboxTable table) throws SQLException {
        String sql = OutboxSql.forTable(table).stats();
        try (PreparedStatement ps = c.prepareStatement(sql); ResultSet rs = ps.executeQuery()) {
            rs.next();
            return new OutboxStats(rs.getLong(1), Math.max(0, rs.getDouble(2)), rs.getLong(3));
        }
    }

    /** True for the SQL states of a table or column that does not exist: the schema needs {@code migrate}. */
    public static boolean schemaOutdated(SQLException e) {
        return "42P01".equals(e.getSQLState()) || "42703".equals(e.getSQLState());
    }
}
