package dev.outboxrelay.daemon;

import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.schema.AdvisoryLocks;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executor;

/**
 * The table's relay lock ({@link AdvisoryLocks#RELAY}), held by the daemon on a dedicated connection for a source
 * that does not take it itself (CDC). PostgreSQL releases it when that session ends (stop, crash, kill -9, lost
 * connection), which is what lets a standby of either mode take over; and the holder can no longer prove it leads
 * once the session is gone, so it must stop.
 */
final class LeaderLock implements AutoCloseable {

    private final ConnectionFactory database;
    private final OutboxTable table;
    private final String applicationName;
    private final Duration networkTimeout;
    private Connection connection;

    LeaderLock(ConnectionFactory database, OutboxTable table, String instanceName, Duration checkInterval) {
        this.database = database;
        this.table = table;
        this.applicationName = instanceName;
        // A partitioned network would block a check forever without a socket timeout.
        this.networkTimeout = checkInterval.multipliedBy(2).compareTo(Duration.ofSeconds(5)) < 0
                ? Duration.ofSeconds(5) : checkInterval.multipliedBy(2);
    }

    String instance() {
        return applicationName;
    }

    OutboxTable table() {
        return table;
    }

    /** Tries to take the lock; opens the session first when needed. */
    boolean tryAcquire() throws SQLException {
        if (connection == null || connection.isClosed()) {
            open();
        }
        return AdvisoryLocks.tryRelayLock(connection, table, applicationName);
    }

    /** True when the session is alive and still holds the lock; any error means it cannot be sure: false. */
    boolean stillHeld() {
        if (connection == null) {
            return false;
        }
        try {
            return AdvisoryLocks.holdsRelayLock(connection, table);
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
