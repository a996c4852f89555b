package dev.outboxrelay.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestPostgres;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Properties;
import org.awaitility.Awaitility;

/** Checks that a TLS suite really ran on a TLS-only server ({@link TestPostgres#sharedTls()}). */
public final class TlsChecks {

    private TlsChecks() {
    }

    /**
     * Without TLS the server refuses the relay role; without its client certificate, too (the password alone is
     * not enough); with the URL's settings it connects over TLS.
     */
    public static void refusesPlainConnections(TestPostgres server) {
        String url = server.jdbcUrl("postgres");
        assertThat(url).contains("sslmode=verify-full");
        String plain = url.substring(0, url.indexOf('?')) + "?sslmode=disable";
        Properties relay = new Properties();
        relay.setProperty("user", server.relayUser());
        relay.setProperty("password", server.relayPassword());
        assertThatThrownBy(() -> DriverManager.getConnection(plain, relay).close())
                .isInstanceOf(SQLException.class).hasMessageContaining("no encryption");
        String noClientCert = url.substring(0, url.indexOf("&sslcert="));
        assertThatThrownBy(() -> DriverManager.getConnection(noClientCert, relay).close())
                .isInstanceOf(SQLException.class);
        try (var c = DriverManager.getConnection(url, relay); var st = c.createStatement();
             var rs = st.executeQuery("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
            assertThat(rs.next()).isTrue();
            assertThat(rs.getBoolean(1)).as("the relay's connection uses TLS").isTrue();
        } catch (SQLException e) {
            throw new AssertionError("the relay role cannot connect with the URL's TLS settings", e);
        }
    }

    /**
     * Waits until the relay role has sessions in {@code database} and checks that every one of them (fetching,
     * marking, replication) runs over TLS with the client certificate, and that they stay up for a few seconds: a
     * source that keeps failing to connect and retrying would show changing or missing sessions.
     *
     * @param replication whether one of the sessions must be the replication slot's walsender (CDC)
     */
    public static void relaySessionsUseTlsAndStayUp(TestDatabase database, boolean replication) throws Exception {
        String sessions = "SELECT string_agg(a.pid::text || ':' || coalesce(s.ssl::text, '?') || ':'"
                + " || coalesce(s.client_dn, '-'), ',' ORDER BY a.pid) FROM pg_stat_activity a"
                + " JOIN pg_stat_ssl s ON s.pid = a.pid WHERE a.usename = '" + database.relayUser() + "'"
                + (replication ? " AND a.pid IN (SELECT active_pid FROM pg_replication_slots"
                        + " WHERE database = '" + database.name() + "')" : " AND a.datname = '" + database.name() + "'");
        Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> database.queryString(sessions) != null);
        String first = database.queryString(sessions);
        for (String session : first.split(",")) {
            assertThat(session).as("a session of the relay role").matches("\\d+:true:/?CN=" + database.relayUser());
        }
        // The same sessions, still up, all along (no reconnect loop behind a healthy face).
        dev.outboxrelay.testkit.Throughout.holds("the same sessions, still up", Duration.ofSeconds(3),
                () -> first.equals(database.queryString(sessions)));
    }

    /**
     * The database's URL with a first host where nothing listens before the real one
     * ({@code jdbc:postgresql://127.0.0.1:<closed>,127.0.0.1:<port>/db?…}): the driver must fall through to the second.
     */
    public static String multiHostUrl(TestDatabase database) throws java.io.IOException {
        int closed;
        try (java.net.ServerSocket s = new java.net.ServerSocket(0)) {
            closed = s.getLocalPort();
        }
        String hostPort = database.host() + ":" + database.port();
        return database.jdbcUrl().replace("//" + hostPort + "/", "//" + database.host() + ":" + closed + ","
                + hostPort + "/");
    }
}
