package dev.outboxrelay.cdc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Properties;
import org.postgresql.Driver;

/** Opens JDBC connections for the source and derives Debezium's connection properties from the same URL. */
final class Database {

    private final String jdbcUrl;
    private final Properties credentials = new Properties();
    private final Properties parsed;

    Database(CdcSettings settings) {
        this.jdbcUrl = settings.jdbcUrl();
        credentials.setProperty("user", settings.user());
        if (settings.password() != null) {
            credentials.setProperty("password", settings.password());
        }
        credentials.setProperty("ApplicationName", "outbox-relay-cdc");
        this.parsed = Driver.parseURL(jdbcUrl, new Properties());
        if (parsed == null) {
            throw new IllegalArgumentException("database URL is not a valid PostgreSQL JDBC URL");
        }
    }

    Connection open() throws SQLException {
        return DriverManager.getConnection(jdbcUrl, credentials);
    }

    /** A logical replication connection, for replication commands such as ALTER_REPLICATION_SLOT. */
    Connection openReplication() throws SQLException {
        Properties p = new Properties();
        p.putAll(credentials);
        p.setProperty("replication", "database");
        p.setProperty("preferQueryMode", "simple"); // replication connections take only the simple protocol
        p.setProperty("assumeMinServerVersion", "9.4");
        return DriverManager.getConnection(jdbcUrl, p);
    }

    /** {@code database.*} properties for the Debezium connector; the password is included, never log them. */
    Map<String, String> debeziumProperties() {
        Map<String, String> p = new LinkedHashMap<>();
        // A multi-host URL lists hosts comma-separated; Debezium takes one, the first (the primary by convention).
        p.put("database.hostname", parsed.getProperty("PGHOST").split(",")[0]);
        p.put("database.port", parsed.getProperty("PGPORT").split(",")[0]);
        p.put("database.dbname", parsed.getProperty("PGDBNAME"));
        p.put("database.user", credentials.getProperty("user"));
        if (credentials.getProperty("password") != null) {
            p.put("database.password", credentials.getProperty("password"));
        }
        String sslmode = parsed.getProperty("sslmode");
        if (sslmode != null) {
            p.put("database.sslmode", sslmode);
        }
        return p;
    }
}
