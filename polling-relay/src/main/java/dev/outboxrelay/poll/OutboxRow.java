package dev.outboxrelay.poll;

import java.time.Instant;
import java.util.UUID;

/** One unsent row as fetched: the contract columns (the payload text, or a bytea payload's bytes) plus the bookkeeping the source needs. */
record OutboxRow(long seq, UUID id, String aggregateType, String aggregateId, String eventType, Object payload,
                 String headers, Instant createdAt, int attempts, java.util.Map<String, Object> columns) {

    /** Never prints the payload or headers. */
    @Override
    public String toString() {
        return "OutboxRow[seq=" + seq + ", id=" + id + ", aggregateId=" + aggregateId + ", attempts=" + attempts + "]";
    }
}
