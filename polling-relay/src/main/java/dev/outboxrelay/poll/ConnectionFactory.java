package dev.outboxrelay.poll;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.Objects;
import java.util.Properties;

/**
 * Opens database connections for the poll source. The source opens a new one whenever the previous one
 * broke, so an implementation must not hand out pooled connections in transaction-pooling mode (the source
 * holds a session-level advisory lock).
 */
@FunctionalInterface
public interface ConnectionFactory {

    /** Opens a new connection. */
    Connection connect() throws SQLException;

    /**
     * Connections from a JDBC URL and driver properties ({@code user}, {@code password}, {@code ssl…}). The
     * properties are copied; they may hold the password, so this factory's {@code toString} shows the URL only.
     */
    static ConnectionFactory jdbc(String url, Properties properties) {
        Objects.requireNonNull(url, "url");
        Properties copy = new Properties();
        copy.putAll(properties);
        return new ConnectionFactory() {
            @Override
            public Connection connect() throws SQLException {
                return DriverManager.getConnection(url, copy);
            }

            @Override
            public String toString() {
                return url;
            }
        };
    }
}
