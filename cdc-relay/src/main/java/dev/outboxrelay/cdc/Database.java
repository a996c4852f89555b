package dev.outboxrelay.cdc;

import dev.outboxrelay.core.config.Password;
import dev.outboxrelay.core.db.ConnectionFactory;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.postgresql.Driver;

/**
 * The CDC source's connections, through relay-core's one {@link ConnectionFactory} (the password is read again for
 * each, replication connections and engine starts too), and Debezium's connection properties from the same URL.
 */
final class Database {

    private final CdcSettings settings;
    private final ConnectionFactory connections;
    private final Properties parsed;

    Database(CdcSettings settings) {
        this.settings = settings;
        this.connections = ConnectionFactory.jdbc(settings.jdbcUrl(), settings.user(), settings.passwordSource());
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
     * reads it again); never log them.
     */
    Map<String, String> debeziumProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        // A multi-host URL lists hosts comma-separated; Debezium takes one, the first (the primary by convention).
        p.put("database.hostname", parsed.getProperty("PGHOST").split(",")[0]);
        p.put("database.port", parsed.getProperty("PGPORT").split(",")[0]);
        p.put("database.dbname", parsed.getProperty("PGDBNAME"));
        p.put("database.user", settings.user());
        settings.password().map(Password::reveal).ifPresent(pw -> p.put("database.password", pw));
        String sslmode = parsed.getProperty("sslmode");
        if (sslmode != null) {
            p.put("database.sslmode", sslmode);
        }
        return p;
    }
}
