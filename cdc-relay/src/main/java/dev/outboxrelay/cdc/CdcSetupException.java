package dev.outboxrelay.cdc;

import dev.outboxrelay.core.SourceSetupException;

/**
 * The database is not set up for CDC and the relay's role cannot fix it (missing privilege, slot of another
 * plugin, publication without the outbox table…). The message says what is missing and how to fix it; it is
 * part of the API and does not change lightly. A human must act: the source does not retry.
 */
public final class CdcSetupException extends SourceSetupException {

    private static final long serialVersionUID = 1L;

    public CdcSetupException(String message) {
        super(message);
    }

    public CdcSetupException(String message, Throwable cause) {
        super(message, cause);
    }
}
