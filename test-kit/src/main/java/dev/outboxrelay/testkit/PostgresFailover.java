package dev.outboxrelay.testkit;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.TimeoutException;

/**
 * A primary with a hot standby (streaming replication) behind one address, for failover tests: relays connect to
 * {@link #jdbcUrl()}; {@link #failOver()} stops the primary the hard way, promotes the standby and moves the
 * address to it, as a virtual IP or DNS switch does. The standby has no logical replication slot, unless it
 * synchronizes the primary's failover slots ({@link #withSlotSync}).
 */
public final class PostgresFailover implements AutoCloseable {

    private static final String STANDBY_SLOT = "outbox_standby";

    private final TestPostgres primary;
    private final TestDatabase database;
    private final TestPostgres standby;
    private final TcpProxy address;
    private boolean failedOver;

    private PostgresFailover(TestPostgres primary, TestDatabase database, TestPostgres standby, TcpProxy address) {
        this.primary = primary;
        this.database = database;
        this.standby = standby;
        this.address = address;
    }

    /**
     * Starts a dedicated primary, lets {@code setup} prepare a new database on it (schema, grants), then starts
     * the standby from a copy of that state.
     */
    public static PostgresFailover start(String databasePrefix, SqlSetup setup) throws Exception {
        return start(0, false, databasePrefix, setup);
    }

    /** Like {@link #start(String, SqlSetup)}, on PostgreSQL {@code major} (0: the installed one). */
    public static PostgresFailover start(int major, String databasePrefix, SqlSetup setup) throws Exception {
        return start(major, false, databasePrefix, setup);
    }

    /**
     * Like {@link #start}, on PostgreSQL {@code major} (17 or later), with a standby that keeps copies of the
     * primary's failover slots ({@code sync_replication_slots = on}) and a primary whose logical walsenders wait
     * for that standby ({@code synchronized_standby_slots}), as PostgreSQL's documentation sets them up.
     */
    public static PostgresFailover withSlotSync(int major, String databasePrefix, SqlSetup setup) throws Exception {
        return start(major, true, databasePrefix, setup);
    }

    private static PostgresFailover start(int major, boolean syncSlots, String databasePrefix, SqlSetup setup)
            throws Exception {
        TestPostgres primary = TestPostgres.start(major, PostgresOptions.defaults());
        TestPostgres standby = null;
        try {
            TestDatabase database = primary.createDatabase(databasePrefix);
            setup.prepare(database);
            PostgresOptions options = PostgresOptions.defaults();
            standby = primary.startStandby(STANDBY_SLOT,
                    syncSlots ? options.withSetting("sync_replication_slots", "on") : options);
            if (syncSlots) {
                database.execute("ALTER SYSTEM SET synchronized_standby_slots = '" + STANDBY_SLOT + "'");
                database.execute("SELECT pg_reload_conf()");
            }
            return new PostgresFailover(primary, database, standby, TcpProxy.to(primary.port()));
        } catch (Exception | Error e) {
            if (standby != null) {
                standby.close();
            }
            primary.close();
            throw e;
        }
    }

    /** Prepares the database before the standby is copied from it. */
    @FunctionalInterface
    public interface SqlSetup {
        /** Creates what the test needs in {@code database}. */
        void prepare(TestDatabase database) throws Exception;
    }

    /** The database through the shared address: the primary until {@link #failOver()}, the promoted standby after. */
    public String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + address.port() + "/" + database.name();
    }

    /** The database on the current primary, for the test's own reads and writes (not through the address). */
    public TestDatabase database() {
        return failedOver ? database.on(standby) : database;
    }

    /** Waits until the standby has replayed all WAL the primary has written so far. */
    public void awaitReplayed(Duration timeout) throws SQLException, TimeoutException, InterruptedException {
        String written = query(primary, "SELECT pg_current_wal_lsn()");
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!"1".equals(query(standby,
                "SELECT CASE WHEN pg_last_wal_replay_lsn() >= '" + written + "'::pg_lsn THEN 1 ELSE 0 END"))) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("the standby did not replay up to " + written + " within " + timeout);
            }
            Thread.sleep(20);
        }
    }

    /**
     * Waits until the standby's copy of logical slot {@code slot} is synchronized and has caught up with the
     * position the primary's slot has confirmed now ({@link #withSlotSync} only).
     */
    public void awaitSlotSynced(String slot, Duration timeout)
            throws SQLException, TimeoutException, InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        // The relay may report ready a moment before its slot has confirmed a position on the primary.
        String confirmed;
        while ((confirmed = query(primary, "SELECT max(confirmed_flush_lsn::text) FROM pg_replication_slots"
                + " WHERE slot_name = '" + slot + "'")) == null) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("the primary has no slot " + slot + " with a confirmed position within "
                        + timeout);
            }
            Thread.sleep(50);
        }
        while (!"1".equals(query(standby, "SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot
                + "' AND synced AND NOT temporary AND confirmed_flush_lsn >= '" + confirmed + "'::pg_lsn"))) {
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("the standby's slot " + slot + " did not reach " + confirmed + " within "
                        + timeout);
            }
            Thread.sleep(50);
        }
    }

    /** Kills the primary (immediate stop), promotes the standby (waits for it) and points the address at it. */
    public void failOver() throws SQLException {
        primary.close();
        query(standby, "SELECT pg_promote()");
        address.redirect(standby.port());
        failedOver = true;
    }

    private String query(TestPostgres server, String sql) throws SQLException {
        try (Connection c = server.connectAdmin(database.name()); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery(sql)) {
            rs.next();
            return rs.getString(1);
        }
    }

    @Override
    public void close() {
        address.close();
        standby.close();
        primary.close();
    }
}
