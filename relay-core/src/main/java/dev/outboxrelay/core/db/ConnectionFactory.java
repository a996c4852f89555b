package dev.outboxrelay.core.db;

import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.Password;
import dev.outboxrelay.core.config.RelayConfig;
import java.sql.Connection;
import java.util.Optional;
import java.util.Properties;
import java.util.function.Supplier;

/**
 * Opens connections to the configured PostgreSQL database: the one way every part of the relay connects (both
 * sources, the daemon's lock and probes, the operator commands). The password is read again for every new
 * connection, so a rotated password file is picked up at the next reconnect. Failures are a
 * {@link DatabaseConnectException} whose message is one line an operator can act on, naming host, port, database
 * and reason. Implementations must not hand out pooled connections in transaction-pooling mode: the relay holds
 * session-level advisory locks.
 */
public interface ConnectionFactory {

    /** A factory for {@code --db-url}, {@code --db-user} and the password from the environment or file. */
    static ConnectionFactory fromConfig(RelayConfig config) {
        return jdbc(config.get(DatabaseOptions.DB_URL), config.get(DatabaseOptions.DB_USER),
                () -> DatabaseOptions.password(config));
    }

    /**
     * Connections to a JDBC URL as {@code user}; {@code password} is asked for every new connection (empty: none,
     * e.g. trust or {@code .pgpass}).
     */
    static ConnectionFactory jdbc(String url, String user, Supplier<Optional<Password>> password) {
        return new JdbcConnectionFactory(url, user, password);
    }

    /**
     * Driver settings for the relay's long-lived sessions (fetch, mark, lock, offsets), below whatever the URL sets:
     * a read that waits {@value #SESSION_SOCKET_TIMEOUT_SECONDS} s for a server that answers every statement in
     * milliseconds means the path is dead (a black hole drops packets without a reset), and the session is
     * replaced; TCP keepalives detect a dead idle session.
     */
    int SESSION_SOCKET_TIMEOUT_SECONDS = 60;

    /** How long opening a connection may take, unless the URL says otherwise (every connection of the relay). */
    int CONNECT_TIMEOUT_SECONDS = 10;

    /**
     * {@link #CONNECT_TIMEOUT_SECONDS}, {@link #SESSION_SOCKET_TIMEOUT_SECONDS} and TCP keepalives, as driver
     * properties.
     */
    static Properties sessionDefaults() {
        Properties p = new Properties();
        p.setProperty("connectTimeout", Integer.toString(CONNECT_TIMEOUT_SECONDS));
        p.setProperty("socketTimeout", Integer.toString(SESSION_SOCKET_TIMEOUT_SECONDS));
        p.setProperty("tcpKeepAlive", "true");
        return p;
    }

    /** This factory with {@code defaults} under every caller's extra properties (the URL still wins over both). */
    default ConnectionFactory withDefaults(Properties defaults) {
        ConnectionFactory base = this;
        return new ConnectionFactory() {
            @Override
            public Connection open(Properties extra) throws DatabaseConnectException {
                Properties merged = new Properties();
                merged.putAll(defaults);
                merged.putAll(extra);
                return base.open(merged);
            }

            @Override
            public String target() {
                return base.target();
            }
        };
    }

    /** A new connection; the caller closes it. */
    default Connection open() throws DatabaseConnectException {
        return open(new Properties());
    }

    /**
     * A new connection with {@code extra} driver properties on top of the factory's own (e.g. a logical
     * replication connection: {@code replication=database}); the caller closes it.
     */
    Connection open(Properties extra) throws DatabaseConnectException;

    /** {@code host:port/database}, for messages; never contains credentials. */
    String target();
}
