package dev.outboxrelay.testkit;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Properties;

/**
 * One database on a {@link TestPostgres} server, made by {@link TestPostgres#createDatabase(String)}.
 *
 * <p>The conveniences ({@link #execute}, {@link #queryLong}, {@link #queryString}, {@link #inTransaction}) run as
 * the superuser and wrap {@link SQLException} in {@link IllegalStateException}, which keeps test code short. They
 * reuse their connections ({@link IdleConnections}): a new session per question made awaiting a condition cost a
 * core. {@link #connect()} always opens a new one.
 */
public final class TestDatabase {

    private final TestPostgres server;
    private final String name;
    private final IdleConnections connections;

    TestDatabase(TestPostgres server, String name) {
        this.server = server;
        this.name = name;
        this.connections = new IdleConnections(() -> server.connectAdmin(name));
    }

    /** Work on a connection, in {@link #inTransaction}. */
    @FunctionalInterface
    public interface SqlWork<T> {
        T run(Connection c) throws SQLException;
    }

    /** The server this database lives on. */
    public TestPostgres server() {
        return server;
    }

    /** Database name. */
    public String name() {
        return name;
    }

    /** {@code jdbc:postgresql://host:port/name}. */
    public String jdbcUrl() {
        return server.jdbcUrl(name);
    }

    /** Server host. */
    public String host() {
        return server.host();
    }

    /** Server port. */
    public int port() {
        return server.port();
    }

    /** Superuser name. */
    public String superUser() {
        return server.superUser();
    }

    /** Superuser password; {@code null} when trust authentication is used. */
    public String superPassword() {
        return server.superPassword();
    }

    /** Name of the password-authenticated, non-superuser replication role. */
    public String relayUser() {
        return server.relayUser();
    }

    /** Password of {@link #relayUser()}. */
    public String relayPassword() {
        return server.relayPassword();
    }

    /** The database of the same name on {@code other}, e.g. this database on a standby of its server. */
    public TestDatabase on(TestPostgres other) {
        return new TestDatabase(other, name);
    }

    /** A new superuser connection (auto-commit on); the caller closes it. */
    public Connection connect() throws SQLException {
        return server.connectAdmin(name);
    }

    /** A new connection as {@code user}; {@code password} may be {@code null}. The caller closes it. */
    public Connection connect(String user, String password) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", user);
        if (password != null) {
            props.setProperty("password", password);
        }
        return DriverManager.getConnection(jdbcUrl(), props);
    }

    /** Runs one or more SQL statements as the superuser. */
    public void execute(String sql) {
        reusing(sql, c -> {
            try (Statement st = c.createStatement()) {
                st.execute(sql);
                return null;
            }
        });
    }

    /**
     * Runs {@code work} in one transaction as the superuser and commits it (rolls back if it throws); returns what
     * {@code work} returns.
     */
    public <T> T inTransaction(SqlWork<T> work) throws SQLException {
        return onReused(c -> {
            c.setAutoCommit(false);
            T result = work.run(c);
            c.commit();
            c.setAutoCommit(true);
            return result;
        });
    }

    private <T> T reusing(String sql, SqlWork<T> work) {
        try {
            return onReused(work);
        } catch (SQLException e) {
            throw new IllegalStateException("SQL failed on " + name + ": " + sql, e);
        }
    }

    /** Runs {@code work} on a reused connection; one it failed on is closed (which rolls back what it left open). */
    private <T> T onReused(SqlWork<T> work) throws SQLException {
        Connection c = connections.borrow();
        boolean failed = true;
        try {
            T result = work.run(c);
            failed = false;
            return result;
        } finally {
            connections.giveBack(c, failed);
        }
    }

    /** First column of the first row as a long, e.g. {@code queryLong("SELECT count(*) FROM outbox")}. */
    public long queryLong(String sql) {
        String value = queryString(sql);
        if (value == null) {
            throw new IllegalStateException("NULL result on " + name + ": " + sql);
        }
        return Long.parseLong(value);
    }

    /** First column of the first row as text ({@code null} for SQL NULL). */
    public String queryString(String sql) {
        String[] value = new String[1];
        boolean found = reusing(sql, c -> {
            try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery(sql)) {
                if (!rs.next()) {
                    return false;
                }
                value[0] = rs.getString(1);
                return true;
            }
        });
        if (!found) {
            throw new IllegalStateException("No row on " + name + ": " + sql);
        }
        return value[0];
    }

    /**
     * Drops the database: terminates its sessions, drops its replication slots (a logical slot pins its
     * database, so DROP DATABASE would fail), then {@code DROP DATABASE ... WITH (FORCE)}.
     */
    public void drop() {
        connections.closeAll();
        try (Connection c = server.connectAdmin("postgres"); Statement st = c.createStatement()) {
            // Slots first: their walsenders count as sessions, and FORCE does not drop slots.
            st.execute("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots "
                    + "WHERE database = '" + name + "' AND active_pid IS NOT NULL");
            dropSlots(st);
            st.execute("DROP DATABASE IF EXISTS " + name + " WITH (FORCE)");
        } catch (SQLException e) {
            throw new IllegalStateException("Could not drop database " + name, e);
        }
    }

    private void dropSlots(Statement st) throws SQLException {
        // A terminated walsender releases its slot asynchronously, so retry briefly.
        SQLException last = null;
        for (int attempt = 0; attempt < 50; attempt++) {
            try {
                st.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE database = '"
                        + name + "'");
                return;
            } catch (SQLException e) {
                last = e;
                try {
                    Thread.sleep(100);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    throw e;
                }
            }
        }
        throw last;
    }

    @Override
    public String toString() {
        return "TestDatabase[" + jdbcUrl() + "]";
    }
}
