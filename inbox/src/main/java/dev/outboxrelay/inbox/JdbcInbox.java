package dev.outboxrelay.inbox;

import dev.outboxrelay.schema.Migrator;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class JdbcInbox implements Inbox {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcInbox.class);
    private static final String UNDEFINED_TABLE = "42P01";

    private final OutboxTable table;
    private final String consumer;
    private final Duration ttl;
    private final String insertSql;
    private final String selectResultSql;
    private final String storeResultSql;
    private final String purgeSql;

    JdbcInbox(OutboxTable table, String consumer, Duration ttl) {
        this.table = table;
        this.consumer = consumer;
        this.ttl = ttl;
        String t = table.quoted();
        // DO NOTHING (not DO UPDATE): a concurrent insert of the same key makes this one wait for that
        // transaction's outcome, which is what makes racing duplicates run the work once.
        this.insertSql = "INSERT INTO " + t + " (consumer, event_id, processed_at, expires_at)"
                + " VALUES (?, ?, now(), now() + make_interval(secs => ?))"
                + " ON CONFLICT (consumer, event_id) DO NOTHING";
        this.selectResultSql = "SELECT result FROM " + t + " WHERE consumer = ? AND event_id = ?";
        this.storeResultSql = "UPDATE " + t + " SET result = ? WHERE consumer = ? AND event_id = ?";
        // SKIP LOCKED: concurrent purgers (one per consumer instance) share the work instead of queueing.
        this.purgeSql = "DELETE FROM " + t + " WHERE (consumer, event_id) IN (SELECT consumer, event_id FROM " + t
                + " WHERE expires_at < now() ORDER BY expires_at LIMIT ? FOR UPDATE SKIP LOCKED)";
    }

    @Override
    public <T, X extends Exception> Outcome<T> process(Connection connection, String eventId, Work<T, X> work)
            throws SQLException, X {
        return run(connection, eventId, null, work);
    }

    @Override
    public <T, X extends Exception> Outcome<T> process(Connection connection, String eventId, ResultCodec<T> codec,
                                                       Work<T, X> work) throws SQLException, X {
        return run(connection, eventId, Objects.requireNonNull(codec, "codec"), work);
    }

    @Override
    public <T, X extends Exception> Outcome<T> process(DataSource dataSource, String eventId, Work<T, X> work)
            throws SQLException, X {
        return inTransaction(dataSource, eventId, null, work);
    }

    @Override
    public <T, X extends Exception> Outcome<T> process(DataSource dataSource, String eventId, ResultCodec<T> codec,
                                                       Work<T, X> work) throws SQLException, X {
        return inTransaction(dataSource, eventId, Objects.requireNonNull(codec, "codec"), work);
    }

    private <T, X extends Exception> Outcome<T> inTransaction(DataSource dataSource, String eventId,
                                                              ResultCodec<T> codec, Work<T, X> work)
            throws SQLException, X {
        Objects.requireNonNull(dataSource, "dataSource");
        Names.eventId(eventId);
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                Outcome<T> outcome = run(c, eventId, codec, work);
                c.commit();
                return outcome;
            } catch (Throwable e) {
                rollbackQuietly(c, e);
                throw e;
            } finally {
                restoreAutoCommit(c, autoCommit);
            }
        }
    }

    private <T, X extends Exception> Outcome<T> run(Connection c, String eventId, ResultCodec<T> codec,
                                                    Work<T, X> work) throws SQLException, X {
        Objects.requireNonNull(c, "connection");
        Objects.requireNonNull(work, "work");
        Names.eventId(eventId);
        if (c.getAutoCommit()) {
            throw new IllegalStateException("Inbox.process(Connection, ...) needs a transaction (auto-commit off):"
                    + " with auto-commit the inbox entry would commit before the work ran, and a failed work would"
                    + " lose the event; call setAutoCommit(false) or use process(DataSource, ...)");
        }
        if (!insert(c, eventId)) {
            LOG.debug("Skipping event {} for consumer {}: already processed", eventId, consumer);
            return Outcome.duplicate(codec == null ? null : storedResult(c, eventId, codec));
        }
        T result = work.run(c);
        if (codec != null && result != null) {
            store(c, eventId, encode(codec, result, eventId));
        }
        return Outcome.ran(result);
    }

    /** True when this call recorded the event; false when it was already recorded (or a racer committed it). */
    private boolean insert(Connection c, String eventId) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(insertSql)) {
            ps.setString(1, consumer);
            ps.setString(2, eventId);
            ps.setDouble(3, ttl.toMillis() / 1000.0);
            return ps.executeUpdate() == 1;
        } catch (SQLException e) {
            throw explainMissingTable(e);
        }
    }

    private <T> T storedResult(Connection c, String eventId, ResultCodec<T> codec) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(selectResultSql)) {
            ps.setString(1, consumer);
            ps.setString(2, eventId);
            try (ResultSet rs = ps.executeQuery()) {
                // No row: purged between our insert and this read (only when the TTL is far too short).
                byte[] bytes = rs.next() ? rs.getBytes(1) : null;
                if (bytes == null) {
                    return null;
                }
                try {
                    return codec.decode(bytes);
                } catch (RuntimeException e) {
                    throw new IllegalStateException("could not decode the stored result of event " + eventId
                            + " for consumer " + consumer + " in " + table + " (" + bytes.length
                            + " bytes): was it stored with another ResultCodec?", e);
                }
            }
        }
    }

    private <T> byte[] encode(ResultCodec<T> codec, T result, String eventId) {
        byte[] bytes = codec.encode(result);
        if (bytes == null) {
            throw new IllegalStateException("ResultCodec returned null for the result of event " + eventId
                    + "; return null from the work instead to store no result");
        }
        return bytes;
    }

    private void store(Connection c, String eventId, byte[] bytes) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(storeResultSql)) {
            ps.setBytes(1, bytes);
            ps.setString(2, consumer);
            ps.setString(3, eventId);
            ps.executeUpdate();
        }
    }

    @Override
    public int purgeExpired(Connection connection, int batchSize) throws SQLException {
        Objects.requireNonNull(connection, "connection");
        Names.batchSize(batchSize);
        try (PreparedStatement ps = connection.prepareStatement(purgeSql)) {
            ps.setInt(1, batchSize);
            int deleted = ps.executeUpdate();
            LOG.debug("Purged {} expired entries from {}", deleted, table);
            return deleted;
        } catch (SQLException e) {
            throw explainMissingTable(e);
        }
    }

    @Override
    public int purgeExpired(DataSource dataSource, int batchSize) throws SQLException {
        Objects.requireNonNull(dataSource, "dataSource");
        Names.batchSize(batchSize);
        int total = 0;
        try (Connection c = dataSource.getConnection()) {
            boolean autoCommit = c.getAutoCommit();
            c.setAutoCommit(false);
            try {
                int deleted;
                do {
                    deleted = purgeExpired(c, batchSize);
                    c.commit();
                    total += deleted;
                } while (deleted == batchSize);
            } catch (SQLException | RuntimeException e) {
                rollbackQuietly(c, e);
                throw e;
            } finally {
                restoreAutoCommit(c, autoCommit);
            }
        }
        return total;
    }

    private SQLException explainMissingTable(SQLException e) {
        if (!UNDEFINED_TABLE.equals(e.getSQLState())) {
            return e;
        }
        return new SQLException("inbox table " + table + " does not exist: create it with Inbox.migrator(\""
                + table + "\").migrate(connection), or have a DBA run Inbox.migrator(\"" + table + "\").script()",
                UNDEFINED_TABLE, e);
    }

    private static void rollbackQuietly(Connection c, Throwable cause) {
        try {
            c.rollback();
        } catch (SQLException | RuntimeException e) {
            cause.addSuppressed(e);
        }
    }

    private static void restoreAutoCommit(Connection c, boolean autoCommit) {
        try {
            c.setAutoCommit(autoCommit);
        } catch (SQLException e) {
            // The connection is being closed right after; a pool validates or discards it.
            LOG.debug("Could not restore auto-commit on an inbox connection", e);
        }
    }

    @Override
    public Migrator migrator() {
        return InboxSchema.migrator(table);
    }

    @Override
    public String table() {
        return table.toString();
    }

    @Override
    public String consumer() {
        return consumer;
    }

    @Override
    public Duration ttl() {
        return ttl;
    }

    @Override
    public String toString() {
        return "Inbox[" + table + ", consumer=" + consumer + ", ttl=" + ttl + "]";
    }
}
