package dev.outboxrelay.core;

/**
 * A source cannot run until a human changes something (a missing privilege, a slot of another plugin…). The
 * message says what is missing and how to fix it; it is API and does not change lightly. Not retried: the daemon
 * stops with exit 1 and this message.
 */
public class SourceSetupException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public SourceSetupException(String message) {
        super(message);
    }

    public SourceSetupException(String message, Throwable cause) {
        super(message, cause);
    }
}
