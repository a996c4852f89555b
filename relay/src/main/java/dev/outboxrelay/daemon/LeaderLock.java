package dev.outboxrelay.daemon;

import dev.outboxrelay.core.db.ConnectionFactory;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * The CDC engine lock of one relay name: a PostgreSQL session advisory lock held on a dedicated connection.
 * PostgreSQL releases it when that session ends (stop, crash, kill -9, lost connection), which is what lets a
 * standby take over; and the holder can no longer prove it leads once the session is gone, so it must stop.
 */
final class LeaderLock implements AutoCloseable {

    /** First key of the lock; the second is {@code hashtext(relay name)}. */
    static final String NAMESPACE = "outbox-relay-cdc";

    private final ConnectionFactory database;
    private final String relayName;
    private final String applicationName;
    private final Duration networkTimeout;
    private Connection connection;

    LeaderLock(ConnectionFactory database, String relayName, Duration checkInterval) {
        this.database = database;
        this.relayName = relayName;
        this.applicationName = instanceName(relayName);
        // A partitioned network would block a check forever without a socket timeout.
        this.networkTimeout = checkInterval.multipliedBy(2).compareTo(Duration.ofSeconds(5)) < 0
                ? Duration.ofSeconds(5) : checkInterval.multipliedBy(2);
    }

    /** {@code relay-name@host:pid}, what {@code pg_stat_activity.application_name} shows (max 63 bytes). */
    static String instanceName(String relayName) {
        String host;
        try {
            host = java.net.InetAddress.getLocalHost().getHostName();
        } catch (java.io.IOException e) {
            host = "unknown-host";
        }
        String name = relayName + "@" + host + ":" + ProcessHandle.current().pid();
        return name.length() > 63 ? name.substring(0, 63) : name;
    }

    String instance() {
        return applicationName;
    }

    /** Tries to take the lock; opens the session first when needed. */
    boolean tryAcquire() throws SQLException {
        if (connection == null || connection.isClosed()) {
            open();
        }
        try (PreparedStatement ps = connection.prepareStatement(
                "SELECT pg_try_advisory_lock(hashtext('" + NAMESPACE + "'), hashtext(?))")) {
            ps.setString(1, relayName);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** True when the session is alive and still holds the lock; any error means it cannot be sure: false. */
    boolean stillHeld() {
        if (connection == null) {
            return false;
        }
        try (PreparedStatement ps = connection.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_locks"
                + " WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid() AND objsubid = 2"
                + " AND classid::bigint = (hashtext('" + NAMESPACE + "')::bigint & 4294967295)"
                + " AND objid::bigint = (hashtext(?)::bigint & 4294967295))")) {
            ps.setString(1, relayName);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        } catch (SQLException e) {
            return false;
        }
    }

    private void open() throws SQLException {
        Connection c = database.open();
        try {
            c.setAutoCommit(true);
            c.setNetworkTimeout(DIRECT, (int) networkTimeout.toMillis());
            try (PreparedStatement ps = c.prepareStatement("SELECT set_config('application_name', ?, false)")) {
                ps.setString(1, applicationName);
                ps.execute();
            }
        } catch (SQLException e) {
            c.close();
            throw e;
        }
        connection = c;
    }

    /** Ends the session, which releases the lock. */
    @Override
    public void close() {
        Connection c = connection;
        connection = null;
        if (c != null) {
            try {
                c.close();
            } catch (SQLException ignored) {
                // the session is gone either way, and with it the lock
            }
        }
    }

    private static final Executor DIRECT = Runnable::run;
}
