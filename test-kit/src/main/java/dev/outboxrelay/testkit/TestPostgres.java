package dev.outboxrelay.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server for tests, demos and benchmarks: a throwaway cluster created with {@code initdb} in
 * a temporary directory, listening on a free port on 127.0.0.1 only, with {@code wal_level=logical} and
 * durability switched off for speed.
 *
 * <p>Typical use is {@link #shared()} (one server per JVM) plus {@link #createDatabase(String)} (one fresh
 * database per test class); {@link PostgresDatabaseExtension} does both for JUnit 5. {@link #start(PostgresOptions)}
 * starts a dedicated server that the caller must {@link #close()}.
 *
 * <p><b>Roles.</b> The superuser {@value #SUPER_USER} connects without a password (trust on loopback). The role
 * {@value #RELAY_USER} ({@code LOGIN REPLICATION}, not a superuser) must authenticate with
 * {@value #RELAY_PASSWORD} via scram-sha-256, so that tests can provoke bad-credential errors.
 *
 * <p><b>Root.</b> PostgreSQL refuses to run as root. When this JVM is root, {@code initdb}, {@code postgres} and
 * {@code pg_ctl} run through {@code runuser -u <user> --} as {@code $PG_OS_USER}, {@code postgres} or
 * {@code nobody} (the first that exists), and the cluster directory is chowned to that user. Otherwise they
 * run as the current user.
 *
 * <p><b>Cleanup.</b> A JVM shutdown hook stops the server ({@code pg_ctl stop -m immediate}) and deletes its
 * directory. If the JVM dies without running hooks ({@code kill -9}), a watchdog shell that holds a pipe from
 * this JVM notices the pipe closing, sends the postmaster SIGQUIT and deletes the directory, so no server is
 * left behind.
 *
 * <p><b>Binaries.</b> {@code $PG_BIN}, else {@code pg_config --bindir}, else the highest
 * {@code /usr/lib/postgresql/<major>/bin}. {@link #sharedOfMajor(int)} takes another
 * major version from the distribution jars the build copied.
 *
 * <p><b>External server.</b> If {@code OUTBOX_TEST_JDBC_URL} is set (with optional
 * {@code OUTBOX_TEST_JDBC_USER}, default {@code postgres}, and {@code OUTBOX_TEST_JDBC_PASSWORD}),
 * {@link #shared()} uses that server instead of starting one. Its user must be a superuser; the
 * {@value #RELAY_USER} role is created there if missing, but whether a wrong password is rejected depends on
 * that server's pg_hba.conf. The server needs {@code wal_level=logical} for CDC tests.
 *
 * <p>This class has no JUnit dependency, so non-test mains can use it.
 */
public final class TestPostgres implements AutoCloseable {

    /** Superuser name, trusted on loopback. */
    public static final String SUPER_USER = "postgres";
    /** Password-authenticated non-superuser role with LOGIN REPLICATION. */
    public static final String RELAY_USER = "relay";
    /** Password of {@link #RELAY_USER}. */
    public static final String RELAY_PASSWORD = "relay-secret";

    /** JDBC URL of an existing server to use instead of starting one (only {@link #shared()} honours it). */
    public static final String EXTERNAL_URL_ENV = "OUTBOX_TEST_JDBC_URL";
    /** Superuser for {@link #EXTERNAL_URL_ENV}; defaults to {@value #SUPER_USER}. */
    public static final String EXTERNAL_USER_ENV = "OUTBOX_TEST_JDBC_USER";
    /** Password for {@link #EXTERNAL_USER_ENV}; optional. */
    public static final String EXTERNAL_PASSWORD_ENV = "OUTBOX_TEST_JDBC_PASSWORD";

    private static final Logger LOG = LoggerFactory.getLogger(TestPostgres.class);
    private static final AtomicInteger DATABASE_COUNTER = new AtomicInteger();
    private static TestPostgres shared;
    private static TestPostgres sharedTls;
    private static final Map<Integer, TestPostgres> SHARED_BY_MAJOR = new HashMap<>();

    private final ManagedPostgres managed;
    private final String host;
    private final int port;
    private final String urlQuery;
    private final String superUser;
    private final String superPassword;
    private final boolean isShared;
    private final Thread shutdownHook;
    private volatile String version;

    private TestPostgres(ManagedPostgres managed, String host, int port, String urlQuery, String superUser,
                         String superPassword, boolean isShared) {
        this.managed = managed;
        this.host = host;
        this.port = port;
        this.urlQuery = urlQuery;
        this.superUser = superUser;
        this.superPassword = superPassword;
        this.isShared = isShared;
        this.shutdownHook = managed == null ? null : new Thread(managed::stop, "outbox-testkit-postgres-stop");
        if (shutdownHook != null) {
            Runtime.getRuntime().addShutdownHook(shutdownHook);
        }
    }

    /**
     * The server shared by everything in this JVM, started on first use (or the external one named by
     * {@code OUTBOX_TEST_JDBC_URL}). It lives until the JVM exits; {@link #close()} on it does nothing.
     */
    public static synchronized TestPostgres shared() {
        if (shared == null) {
            String url = System.getenv(EXTERNAL_URL_ENV);
            shared = url != null && !url.isBlank()
                    ? external(url.trim(), System.getenv(EXTERNAL_USER_ENV), System.getenv(EXTERNAL_PASSWORD_ENV))
                    : startManaged(PgBinaries.find(), PostgresOptions.defaults(), true);
        }
        return shared;
    }

    /**
     * A server of PostgreSQL {@code major} shared by everything in this JVM, started on first use from the
     * distribution jars the module's build copied (zonky's binaries, see {@code PgDistributions}), for suites that
     * must pass on every supported version; 0 means the installed server, {@link #shared()} (so a suite
     * parameterized by version names the installed one the same way). Otherwise never the external server;
     * {@link #close()} on it does nothing.
     */
    public static synchronized TestPostgres sharedOfMajor(int major) {
        if (major == 0) {
            return shared();
        }
        return SHARED_BY_MAJOR.computeIfAbsent(major,
                m -> startManaged(PgDistributions.bin(m), PostgresOptions.defaults(), true));
    }

    /**
     * A TLS-only server (installed binaries) shared by everything in this JVM, started on first use: its
     * {@link #jdbcUrl} verifies the server's certificate and host name ({@code sslmode=verify-full}) and presents
     * the relay role's client certificate, which is how that role must log in ({@link TestCertificates}).
     */
    public static synchronized TestPostgres sharedTls() {
        if (sharedTls == null) {
            Path dir;
            try {
                dir = Files.createTempDirectory("outbox-tls-");
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            sharedTls = startManaged(PgBinaries.find(), PostgresOptions.defaults()
                    .withTls(TestCertificates.create(dir)), true);
        }
        return sharedTls;
    }

    /** Starts a dedicated server with default options; the caller must close it. */
    public static TestPostgres start() {
        return start(PostgresOptions.defaults());
    }

    /** Starts a dedicated server (never the external one); the caller must close it. */
    public static TestPostgres start(PostgresOptions options) {
        return startManaged(PgBinaries.find(), options, false);
    }

    /**
     * Starts a dedicated server of PostgreSQL {@code major} (0: the installed one), as {@link #sharedOfMajor}
     * finds it; the caller must close it.
     */
    public static TestPostgres start(int major, PostgresOptions options) {
        return startManaged(major == 0 ? PgBinaries.find() : PgDistributions.bin(major), options, false);
    }

    private static TestPostgres startManaged(Path bin, PostgresOptions options, boolean isShared) {
        ManagedPostgres managed;
        try {
            managed = ManagedPostgres.start(bin, options);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start PostgreSQL from " + bin, e);
        }
        String urlQuery = options.tls() == null ? "" : options.tls().jdbcParameters();
        TestPostgres pg = new TestPostgres(managed, "127.0.0.1", managed.port(), urlQuery, SUPER_USER, null, isShared);
        try {
            pg.ensureRelayRole();
        } catch (RuntimeException e) {
            pg.stopNow();
            throw e;
        }
        return pg;
    }

    /**
     * Starts a hot standby of this dedicated server (streaming replication through physical slot
     * {@code outbox_standby}; promote it with {@code SELECT pg_promote()}); the caller must close it.
     */
    public TestPostgres startStandby() {
        return startStandby("outbox_standby", PostgresOptions.defaults());
    }

    /**
     * Starts a hot standby of this dedicated server that streams through physical slot {@code slot} (created on
     * this server) with {@code hot_standby_feedback} on, plus the settings of {@code options}; the caller must
     * close it.
     */
    public TestPostgres startStandby(String slot, PostgresOptions options) {
        if (managed == null) {
            throw new IllegalStateException("only a server the test kit started can have a standby");
        }
        try {
            ManagedPostgres standby = ManagedPostgres.startStandby(managed, slot, options);
            return new TestPostgres(standby, "127.0.0.1", standby.port(), "", SUPER_USER, null, false);
        } catch (IOException e) {
            throw new UncheckedIOException("Could not start a standby of " + this, e);
        }
    }

    private static TestPostgres external(String jdbcUrl, String user, String password) {
        if (!jdbcUrl.startsWith("jdbc:postgresql://")) {
            throw new IllegalArgumentException(EXTERNAL_URL_ENV + " must look like jdbc:postgresql://host:port/db, got " + jdbcUrl);
        }
        URI uri = URI.create(jdbcUrl.substring("jdbc:".length()));
        String query = uri.getRawQuery() == null ? "" : uri.getRawQuery();
        TestPostgres pg = new TestPostgres(null, uri.getHost(), uri.getPort() > 0 ? uri.getPort() : 5432, query,
                user == null || user.isBlank() ? SUPER_USER : user, password, true);
        pg.ensureRelayRole();
        LOG.info("Using external PostgreSQL at {}:{} ({})", pg.host, pg.port, pg.version());
        return pg;
    }

    private void ensureRelayRole() {
        // DO block: CREATE ROLE has no IF NOT EXISTS, and an external server may already have the role.
        String sql = "DO $$ BEGIN "
                + "IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '" + RELAY_USER + "') THEN "
                + "CREATE ROLE " + RELAY_USER + " LOGIN REPLICATION PASSWORD '" + RELAY_PASSWORD + "'; "
                + "ELSE ALTER ROLE " + RELAY_USER + " LOGIN REPLICATION PASSWORD '" + RELAY_PASSWORD + "'; "
                + "END IF; END $$";
        try (Connection c = connectAdmin("postgres"); Statement st = c.createStatement()) {
            st.execute(sql);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create role " + RELAY_USER, e);
        }
    }

    /**
     * Creates a new, empty database named {@code <prefix>_<n>_<random>} (lower-cased, only {@code [a-z0-9_]}).
     * {@value #RELAY_USER} may connect to it, create objects in schema {@code public}, and use every table,
     * sequence and function the superuser creates there later (default privileges), so tests can set up a
     * schema as superuser and run the relay as the unprivileged role.
     */
    public TestDatabase createDatabase(String prefix) {
        String clean = prefix == null ? "" : prefix.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
        if (clean.isEmpty() || !Character.isLetter(clean.charAt(0))) {
            clean = "db_" + clean;
        }
        clean = clean.substring(0, Math.min(clean.length(), 40));
        // The random part keeps names unique across JVMs sharing an external server.
        String name = clean + "_" + DATABASE_COUNTER.incrementAndGet() + "_"
                + Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
        try (Connection c = connectAdmin("postgres"); Statement st = c.createStatement()) {
            st.execute("CREATE DATABASE " + name);
            st.execute("GRANT ALL ON DATABASE " + name + " TO " + RELAY_USER);
        } catch (SQLException e) {
            throw new IllegalStateException("Could not create database " + name, e);
        }
        try (Connection c = connectAdmin(name); Statement st = c.createStatement()) {
            st.execute("GRANT ALL ON SCHEMA public TO " + RELAY_USER);
            for (String kind : new String[] {"TABLES", "SEQUENCES", "FUNCTIONS"}) {
                st.execute("ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON " + kind + " TO " + RELAY_USER);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not grant " + RELAY_USER + " access to " + name, e);
        }
        return new TestDatabase(this, name);
    }

    /** JDBC URL of {@code database} on this server (keeps the query parameters of an external URL). */
    public String jdbcUrl(String database) {
        return "jdbc:postgresql://" + host + ":" + port + "/" + database + (urlQuery.isEmpty() ? "" : "?" + urlQuery);
    }

    /** A superuser connection to {@code database}. */
    public Connection connectAdmin(String database) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", superUser);
        if (superPassword != null) {
            props.setProperty("password", superPassword);
        }
        return DriverManager.getConnection(jdbcUrl(database), props);
    }

    /** Host to connect to; {@code 127.0.0.1} for a managed server. */
    public String host() {
        return host;
    }

    /** TCP port of the server. */
    public int port() {
        return port;
    }

    /** Name of the superuser role. */
    public String superUser() {
        return superUser;
    }

    /** Password of the superuser; {@code null} for a managed server (trust authentication). */
    public String superPassword() {
        return superPassword;
    }

    /** Name of the password-authenticated replication role. */
    public String relayUser() {
        return RELAY_USER;
    }

    /** Password of {@link #relayUser()}. */
    public String relayPassword() {
        return RELAY_PASSWORD;
    }

    /** Whether this object started the server (false for an external server). */
    public boolean managed() {
        return managed != null;
    }

    /** The OS user the server processes run as, for diagnostics; {@code null} for an external server. */
    public String osUser() {
        return managed == null ? null : managed.osUser();
    }

    /** The server's version string as reported by {@code SHOW server_version}, e.g. {@code 15.14 (Debian ...)}. */
    public String version() {
        String v = version;
        if (v == null) {
            v = setting("server_version");
            version = v;
        }
        return v;
    }

    /** A server setting as {@code current_setting(name)} reports it, e.g. {@code on} for {@code fsync}. */
    public String setting(String name) {
        try (Connection c = connectAdmin("postgres");
             PreparedStatement ps = c.prepareStatement("SELECT current_setting(?)")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getString(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException("Could not query the server setting " + name, e);
        }
    }

    /**
     * The directory of the PostgreSQL binaries ({@code psql}, {@code pg_recvlogical}, ...). For an external
     * server these are the local binaries found the usual way, which may not exist.
     */
    public Path bin() {
        return PgBinaries.find();
    }

    /**
     * Stops a dedicated server and deletes its files. Does nothing for {@link #shared()} (others in this JVM
     * may still use it; a shutdown hook stops it) or for an external server.
     */
    @Override
    public void close() {
        if (!isShared) {
            stopNow();
        }
    }

    private void stopNow() {
        if (managed == null) {
            return;
        }
        managed.stop();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyExiting) {
            // the hook is running or has run; stop() is idempotent
        }
    }

    @Override
    public String toString() {
        return "TestPostgres[" + host + ":" + port + (managed != null ? ", " + managed.directory() : ", external") + "]";
    }
}
