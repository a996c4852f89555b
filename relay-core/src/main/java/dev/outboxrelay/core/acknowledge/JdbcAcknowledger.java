package dev.outboxrelay.core.acknowledge;

import dev.outboxrelay.schema.OutboxSql;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

final class JdbcAcknowledger implements Acknowledger {

    /** Longer reasons are cut: last_error is for a human, and a stack trace does not help there. */
    private static final int MAX_REASON = 1000;

    private final String acknowledgeSql;
    private final String failureSql;
    private final String attemptsSql;
    private final String holdSql;
    private final String presentSql;

    JdbcAcknowledger(OutboxTable table, OnPublish onPublish) {
        OutboxSql sql = OutboxSql.forTable(table);
        this.acknowledgeSql = onPublish == OnPublish.DELETE ? sql.delete() : sql.markSent();
        this.failureSql = sql.recordFailure();
        this.attemptsSql = sql.attempts();
        this.holdSql = sql.holdForRetry();
        this.presentSql = sql.presentAmong();
    }

    @Override
    public Map<UUID, Integer> attempts(Connection connection, Collection<UUID> ids) throws SQLException {
        Map<UUID, Integer> attempts = new HashMap<>();
        if (ids.isEmpty()) {
            return attempts;
        }
        try (PreparedStatement ps = connection.prepareStatement(attemptsSql)) {
            ps.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    attempts.put(rs.getObject(1, UUID.class), rs.getInt(2));
                }
            }
        }
        return attempts;
    }

    @Override
    public void holdForRetry(Connection connection, Map<UUID, java.time.Duration> delays) throws SQLException {
        try (PreparedStatement ps = connection.prepareStatement(holdSql)) {
            for (Map.Entry<UUID, java.time.Duration> e : delays.entrySet()) {
                ps.setLong(1, e.getValue().toMillis());
                ps.setObject(2, e.getKey());
                ps.addBatch();
            }
            ps.executeBatch();
        }
    }

    @Override
    public int acknowledge(Connection connection, Collection<UUID> ids) throws SQLException {
        if (ids.isEmpty()) {
            return 0;
        }
        try (PreparedStatement ps = connection.prepareStatement(acknowledgeSql)) {
            Array array = connection.createArrayOf("uuid", ids.toArray());
            ps.setArray(1, array);
            return ps.executeUpdate();
        }
    }

    @Override
    public java.util.Set<UUID> present(Connection connection, Collection<UUID> ids) throws SQLException {
        java.util.Set<UUID> present = new java.util.HashSet<>();
        if (ids.isEmpty()) {
            return present;
        }
        try (PreparedStatement ps = connection.prepareStatement(presentSql)) {
            ps.setArray(1, connection.createArrayOf("uuid", ids.toArray()));
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    present.add(rs.getObject(1, UUID.class));
                }
            }
        }
        return present;
    }

    @Override
    public Collection<UUID> recordFailures(Connection connection, Collection<Failure> failures, int maxAttempts)
            throws SQLException {
        List<UUID> dead = new ArrayList<>();
        try (PreparedStatement ps = connection.prepareStatement(failureSql)) {
            for (Failure f : failures) {
                String reason = f.reason() == null ? "unknown error" : f.reason();
                ps.setString(1, reason.length() > MAX_REASON ? reason.substring(0, MAX_REASON) : reason);
                ps.setInt(2, maxAttempts);
                ps.setObject(3, f.id());
                try (ResultSet rs = ps.executeQuery()) {
                    if (rs.next() && rs.getBoolean(1)) {
                        dead.add(f.id());
                    }
                }
            }
        }
        return dead;
    }
}
