package dev.outboxrelay.schema;

import java.io.IOException;
import java.net.InetAddress;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/**
 * Every PostgreSQL advisory lock outbox-relay takes, in one place. Each is keyed by two {@code int4}s: the
 * {@code hashtext} of a namespace, and the {@code hashtext} of what it locks.
 * <ul>
 *   <li>{@link #MIGRATE}: transaction-scoped, on the history table, held by {@code migrate} while it applies steps;
 *   </li>
 *   <li>{@link #RELAY}: session-scoped, on the outbox table, held by the one active relay of that table in either
 *       mode. A second relay of either mode on the same table stands by until the holder's session ends (stop,
 *       crash, kill -9, lost connection). The holder's session carries its {@link #instanceName} as
 *       {@code application_name}, which is how {@code status} tells who holds it.</li>
 *   <li>{@link #SHARD} and {@link #SPLIT}: session-scoped, on one key-hash shard of the outbox table and on the
 *       split into N shards, held by the Kafka Connect task that reads it, together with the table's relay lock
 *       taken <em>shared</em>: the tasks of a connector run side by side, a daemon (which takes the relay lock
 *       exclusively) cannot run beside them, a second task for the same shard (a task moved off a worker that still
 *       runs) waits until the first one's session ends, and the tasks of a new split wait for the old split's.</li>
 * </ul>
 */
public final class AdvisoryLocks {

    private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(AdvisoryLocks.class);

    /** The migrations' lock namespace (second key: the history table). */
    public static final String MIGRATE = "outbox-relay-migrate";
    /** The active relay's lock namespace (second key: the outbox table, {@code schema.table}). */
    public static final String RELAY = "outbox-relay";

    /** The session holding a table's relay lock, as {@code pg_locks} and {@code pg_stat_activity} show it. */
    public record Holder(String applicationName, int backendPid, String clientAddress, String since) {

        /** The holder's mode ({@code poll}, {@code cdc}) from its {@link #instanceName}, or {@code relay}. */
        public String mode() {
            int slash = applicationName == null ? -1 : applicationName.lastIndexOf('/');
            return slash < 0 ? "relay" : applicationName.substring(slash + 1);
        }
    }

    /** The Connect tasks' shard lock namespace (second key: {@code schema.table#index/count}). */
    public static final String SHARD = "outbox-relay-shard";
    /**
     * The Connect tasks' split locks: {@code (hashtext(SPLIT:schema.table), shard count)}, held shared by every task
     * of one split; also, as {@code (hashtext(SPLIT), hashtext(schema.table))}, the transaction lock that serializes
     * the tasks' checks.
     */
    public static final String SPLIT = "outbox-relay-split";

    private static final String KEYS = "(hashtext('" + RELAY + "')::bigint & 4294967295)";

    private AdvisoryLocks() {
    }

    /**
     * {@code relay-name@host:pid/mode}, what {@code pg_stat_activity.application_name} shows for a relay's sessions
     * (cut to PostgreSQL's 63 bytes, keeping the mode).
     */
    public static String instanceName(String relayName, String mode) {
        String host;
        try {
            host = InetAddress.getLocalHost().getHostName();
        } catch (IOException e) {
            host = "unknown-host";
        }
        String suffix = "/" + mode;
        String name = relayName + "@" + host + ":" + ProcessHandle.current().pid();
        return (name.length() + suffix.length() > 63 ? name.substring(0, 63 - suffix.length()) : name) + suffix;
    }

    /** The statement {@code migrate} runs first in its transaction. */
    public static String migrateLockStatement(String historyTable) {
        return "SELECT pg_advisory_xact_lock(hashtext(" + literal(MIGRATE) + "), hashtext(" + literal(historyTable)
                + "))";
    }

    /** Tries to take {@code table}'s relay lock on this session; true when this session holds it now. */
    public static boolean tryRelayLock(Connection c, OutboxTable table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT pg_try_advisory_lock(hashtext('" + RELAY + "'), hashtext(?))")) {
            ps.setString(1, table.toString());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /**
     * {@link #tryRelayLock}, and when another session holds the lock that belongs to this very process (a session
     * lost to a broken network path, see {@link #endOwnStaleHolders}), ends it and tries once more.
     */
    public static boolean tryRelayLock(Connection c, OutboxTable table, String instanceName) throws SQLException {
        if (tryRelayLock(c, table)) {
            return true;
        }
        int ended = endOwnStaleHolders(c, table, instanceName);
        if (ended == 0) {
            return false;
        }
        LOG.warn("Ended {} stale session(s) of this relay that still held the relay lock of {} after their network"
                + " path was lost", ended, table);
        return tryRelayLock(c, table);
    }

    /**
     * Ends sessions of this very process ({@code application_name} = {@code instanceName}, which names host and pid)
     * other than the caller's that still hold {@code table}'s relay lock: sessions whose network path was lost (a
     * black hole drops the close too), which the server would otherwise keep, lock and all, until its TCP
     * keepalive gives up, hours later. Returns how many were ended; a role may always end its own sessions.
     */
    public static int endOwnStaleHolders(Connection c, OutboxTable table, String instanceName) throws SQLException {
        String sql = "SELECT count(*) FILTER (WHERE pg_terminate_backend(l.pid, 5000)) FROM pg_locks l"
                + " JOIN pg_stat_activity a ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted"
                + " AND l.objsubid = 2 AND l.pid <> pg_backend_pid() AND a.application_name = ?"
                + " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                + " AND l.classid::bigint = " + KEYS + " AND l.objid::bigint = (hashtext(?)::bigint & 4294967295)";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, instanceName);
            ps.setString(2, table.toString());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getInt(1) : 0;
            }
        }
    }

    /**
     * Tries to take, on this session, {@code table}'s relay lock shared, the lock of the split into {@code count}
     * shards shared, and the lock of shard {@code index} exclusively; true when it holds all three now. Refused while
     * a session holds the lock of a split into another number of shards: after {@code tasks.max} changed, the new
     * tasks wait until every task of the old split stopped, so no key is read by two tasks at once. The check and the
     * taking are serialized per table (a transaction-level lock), so two splits never start side by side. Releases
     * what it took when it cannot have all.
     */
    public static boolean tryShardLocks(Connection c, OutboxTable table, int index, int count) throws SQLException {
        boolean autoCommit = c.getAutoCommit();
        c.setAutoCommit(false);
        try {
            execute(c, "SELECT pg_advisory_xact_lock(hashtext('" + SPLIT + "'), hashtext(?))", table.toString());
            boolean taken = !otherSplitRunning(c, table, count)
                    && bool(c, "SELECT pg_try_advisory_lock_shared(hashtext('" + RELAY + "'), hashtext(?))",
                            table.toString());
            if (taken && !bool(c, "SELECT pg_try_advisory_lock(hashtext('" + SHARD + "'), hashtext(?))",
                    table + "#" + index + "/" + count)) {
                execute(c, "SELECT pg_advisory_unlock_shared(hashtext('" + RELAY + "'), hashtext(?))",
                        table.toString());
                taken = false;
            }
            if (taken) {
                try (PreparedStatement ps = c.prepareStatement("SELECT pg_advisory_lock_shared(hashtext(?), ?)")) {
                    ps.setString(1, SPLIT + ":" + table);
                    ps.setInt(2, count);
                    ps.execute();
                }
            }
            c.commit(); // session-level locks outlive the transaction; the serializing one ends here
            return taken;
        } catch (SQLException | RuntimeException e) {
            try {
                c.rollback();
            } catch (SQLException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        } finally {
            c.setAutoCommit(autoCommit);
        }
    }

    /** Whether a session holds the lock of a split of {@code table} into other than {@code count} shards. */
    private static boolean otherSplitRunning(Connection c, OutboxTable table, int count) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_locks l"
                + " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2"
                + " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                + " AND l.classid::bigint = (hashtext(?)::bigint & 4294967295) AND l.objid::bigint <> ?)")) {
            ps.setString(1, SPLIT + ":" + table);
            ps.setLong(2, count);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    private static void execute(Connection c, String sql, String arg) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, arg);
            ps.execute();
        }
    }

    private static boolean bool(Connection c, String sql, String arg) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, arg);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** True when this session holds {@code table}'s relay lock. */
    public static boolean holdsRelayLock(Connection c, OutboxTable table) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_locks"
                + " WHERE locktype = 'advisory' AND granted AND pid = pg_backend_pid() AND objsubid = 2"
                + " AND classid::bigint = " + KEYS + " AND objid::bigint = (hashtext(?)::bigint & 4294967295))")) {
            ps.setString(1, table.toString());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    /** The session holding {@code table}'s relay lock in this database, or null when none does. */
    public static Holder relayLockHolder(Connection c, OutboxTable table) throws SQLException {
        String sql = "SELECT a.application_name, l.pid, CASE WHEN a.backend_start IS NULL"
                + " THEN 'hidden (needs pg_read_all_stats)' ELSE coalesce(host(a.client_addr), 'local socket') END,"
                + " coalesce(a.backend_start::text, 'hidden') FROM pg_locks l LEFT JOIN pg_stat_activity a"
                + " ON a.pid = l.pid WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2"
                + " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                + " AND l.classid::bigint = " + KEYS + " AND l.objid::bigint = (hashtext(?)::bigint & 4294967295)";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, table.toString());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Holder(rs.getString(1), rs.getInt(2), rs.getString(3), rs.getString(4)) : null;
            }
        }
    }

    private static String literal(String s) {
        return "'" + s.replace("'", "''") + "'";
    }
}
