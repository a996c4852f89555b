package dev.outboxrelay.core.db;

import java.sql.SQLException;

/**
 * The relay could not open a connection. The message is the one line shown to operators, e.g.
 * {@code cannot connect to PostgreSQL at localhost:5499/app: connection refused}; the driver's exception is
 * the cause, for {@code --verbose}.
 */
public final class DatabaseConnectException extends SQLException {

    private static final long serialVersionUID = 1L;

    DatabaseConnectException(String target, String reason, SQLException cause) {
        super("cannot connect to PostgreSQL at " + target + ": " + reason, cause.getSQLState(), cause);
    }
}
