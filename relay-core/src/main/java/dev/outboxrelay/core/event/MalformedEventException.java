package dev.outboxrelay.core.event;

import java.util.UUID;

/**
 * A row that can never be published as it is (bad headers JSON, a topic name Kafka rejects, …). The reason is
 * stored on the row when it is dead-lettered, so it must say what is wrong without quoting the payload.
 */
public final class MalformedEventException extends Exception {

    private static final long serialVersionUID = 1L;

    private final transient UUID eventId;

    public MalformedEventException(UUID eventId, String reason) {
        super(reason);
        this.eventId = eventId;
    }

    /** The event's id, or {@code null} when even the id could not be read. */
    public UUID eventId() {
        return eventId;
    }
}
