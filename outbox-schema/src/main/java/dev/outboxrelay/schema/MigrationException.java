package dev.outboxrelay.schema;

/** The database's schema cannot be brought to the relay's version without a human deciding how. */
public final class MigrationException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public MigrationException(String message) {
        super(message);
    }

    public MigrationException(String message, Throwable cause) {
        super(message, cause);
    }
}
