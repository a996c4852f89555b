package dev.outboxrelay.poll;

import java.time.Instant;
import java.util.UUID;

/** One unsent row as fetched: the contract columns as text plus the bookkeeping the source needs. */
record OutboxRow(long seq, UUID id, String aggregateType, String aggregateId, String eventType, String payload,
                 String headers, Instant createdAt, int attempts) {

    /** Never prints the payload or headers. */
    @Override
    public String toString() {
        return "OutboxRow[seq=" + seq + ", id=" + id + ", aggregateId=" + aggregateId + ", attempts=" + attempts + "]";
    }
}
