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
