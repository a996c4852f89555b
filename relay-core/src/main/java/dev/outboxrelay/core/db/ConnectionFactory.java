package dev.outboxrelay.core.db;

import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.RelayConfig;
import java.sql.Connection;

/**
 * Opens connections to the configured PostgreSQL database. Failures are a {@link DatabaseConnectException}
 * whose message is one line an operator can act on, naming host, port, database and reason.
 */
public interface ConnectionFactory {

    /** A factory for {@code --db-url}, {@code --db-user} and the password from the environment or file. */
    static ConnectionFactory fromConfig(RelayConfig config) {
        return new JdbcConnectionFactory(config.get(DatabaseOptions.DB_URL), config.get(DatabaseOptions.DB_USER),
                () -> DatabaseOptions.password(config));
    }

    /** A new connection; the caller closes it. */
    Connection open() throws DatabaseConnectException;

    /** {@code host:port/database}, for messages; never contains credentials. */
    String target();
}
