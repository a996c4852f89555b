package dev.outboxrelay.cdc;

import dev.outboxrelay.core.config.Password;
import dev.outboxrelay.core.db.ConnectionFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.postgresql.Driver;
import org.postgresql.core.BaseConnection;
import org.postgresql.util.HostSpec;

/**
 * The CDC source's connections, through relay-core's one {@link ConnectionFactory} (the password is read again for
 * each, replication connections and engine starts too), and Debezium's connection properties from the same URL.
 */
final class Database {

    /** What the URL's parse holds besides driver settings: Debezium gets these as its own properties. */
    private static final Set<String> NOT_DRIVER_SETTINGS = Set.of("PGHOST", "PGPORT", "PGDBNAME", "user",
            "password");

    private final CdcSettings settings;
    private final ConnectionFactory connections;
    private final Properties parsed;

    Database(CdcSettings settings) {
        this.settings = settings;
        this.connections = ConnectionFactory.jdbc(settings.jdbcUrl(), settings.user(), settings.passwordSource())
                .withDefaults(ConnectionFactory.sessionDefaults());
        this.parsed = Driver.parseURL(settings.jdbcUrl(), new Properties());
        if (parsed == null) {
            throw new IllegalArgumentException("database URL is not a valid PostgreSQL JDBC URL");
        }
    }

    Connection open() throws SQLException {
        Properties p = new Properties();
        p.setProperty("ApplicationName", "outbox-relay-cdc");
        return connections.open(p);
    }

    /** A logical replication connection, for replication commands such as ALTER_REPLICATION_SLOT. */
    Connection openReplication() throws SQLException {
        Properties p = new Properties();
        p.setProperty("ApplicationName", "outbox-relay-cdc");
        p.setProperty("replication", "database");
        p.setProperty("preferQueryMode", "simple"); // replication connections take only the simple protocol
        p.setProperty("assumeMinServerVersion", "9.4");
        return connections.open(p);
    }

    /**
     * {@code database.*} properties for the Debezium connector, with the password as read now (each engine start
     * reads it again); never log them. Every driver property of the URL (TLS files and modes, timeouts,
     * {@code targetServerType}...) goes along: Debezium hands {@code database.*} to the driver on its ordinary and
     * replication connections alike. Debezium takes one host, so a URL with several is resolved to the host the
     * driver picks for it now (honouring {@code targetServerType}), at every engine start.
     */
    Map<String, String> debeziumProperties() throws SQLException {
        Map<String, String> p = new LinkedHashMap<>();
        String[] hostAndPort = hostAndPort();
        p.put("database.hostname", hostAndPort[0]);
        p.put("database.port", hostAndPort[1]);
        p.put("database.dbname", parsed.getProperty("PGDBNAME"));
        p.put("database.user", settings.user());
        settings.password().map(Password::reveal).ifPresent(pw -> p.put("database.password", pw));
        for (String key : parsed.stringPropertyNames()) {
            if (!NOT_DRIVER_SETTINGS.contains(key)) {
                p.put("database." + key, parsed.getProperty(key));
            }
        }
        // The relay's session defaults for Debezium's sessions too (connect timeout, socket timeout, keepalives; its
        // replication stream gets traffic every heartbeat and status update).
        ConnectionFactory.sessionDefaults().forEach((k, v) -> p.putIfAbsent("database." + k, (String) v));
        return p;
    }

    private String[] hostAndPort() throws SQLException {
        String hosts = parsed.getProperty("PGHOST");
        String ports = parsed.getProperty("PGPORT");
        if (!hosts.contains(",")) {
            return new String[] {hosts, ports.split(",")[0]};
        }
        try (Connection c = open()) {
            HostSpec host = c.unwrap(BaseConnection.class).getQueryExecutor().getHostSpec();
            return new String[] {host.getHost(), String.valueOf(host.getPort())};
        }
    }
}
