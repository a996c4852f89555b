package dev.outboxrelay.core.delivery;

import dev.outboxrelay.schema.OutboxSql;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;

/**
 * The holds for a retry that the table keeps ({@code retry_at}, written by the pipeline when a row fails through
 * its own fault), put back into a {@link KeyParking} when a source becomes active: after a restart or a takeover, a
 * key held for a retry is published neither before its backoff ends nor twice, and its backoff goes on growing from
 * the attempts it has. Both sources call it before they publish anything.
 */
public final class RetryHolds {

    private RetryHolds() {
    }

    /** Parks every key of {@code table} that is still held for a retry; returns how many. */
    public static int restore(Connection c, OutboxTable table, KeyParking parking) throws SQLException {
        int n = 0;
        try (PreparedStatement ps = c.prepareStatement(OutboxSql.forTable(table).heldForRetry());
             ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                parking.restoreRetry(rs.getString(1), "held for a retry (as recorded in the table)",
                        Duration.ofMillis(Math.max(0, rs.getLong(2))), rs.getInt(3));
                n++;
            }
        }
        return n;
    }
}
