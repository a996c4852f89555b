package dev.outboxrelay.core.acknowledge;

import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.Map;
import java.util.UUID;

/**
 * The last stage of the pipeline: tells the outbox table which events Kafka acknowledged. Callers pass only
 * ids whose records were acknowledged; one statement per call, in the caller's transaction.
 */
public interface Acknowledger {

    /** What to do with a row once its record is acknowledged. */
    enum OnPublish {
        /** Set {@code sent_at}; rows are purged later after the retention period. */
        MARK,
        /** Delete the row at once. */
        DELETE
    }

    /** An acknowledger for {@code table} that marks or deletes acknowledged rows. */
    static Acknowledger forTable(OutboxTable table, OnPublish onPublish) {
        return new JdbcAcknowledger(table, onPublish);
    }

    /**
     * Marks or deletes the given rows. Ids that no longer exist (deleted by the application, or already
     * acknowledged by an earlier run) are ignored.
     *
     * @return how many rows changed
     */
    int acknowledge(Connection connection, Collection<UUID> ids) throws SQLException;

    /**
     * Those of {@code ids} whose rows the database shows this connection now, sent or not. A streamed row's
     * transaction can be in the WAL (and its record acknowledged by Kafka) a moment before other sessions see it
     * committed: such a row is absent here, while a row that is only sent already is present.
     */
    java.util.Set<UUID> present(Connection connection, Collection<UUID> ids) throws SQLException;

    /**
     * Records failed publish attempts: increments {@code attempts}, stores the reason in {@code last_error}, and
     * dead-letters rows whose attempts reach {@code maxAttempts}.
     *
     * @return the ids dead-lettered by this call
     */
    Collection<UUID> recordFailures(Connection connection, Collection<Failure> failures, int maxAttempts)
            throws SQLException;

    /**
     * The attempts recorded so far of those of {@code ids} that are still unsent and not dead letters (the others
     * are absent), so a caller can tell which failures will dead-letter their row before recording them.
     */
    Map<UUID, Integer> attempts(Connection connection, Collection<UUID> ids) throws SQLException;

    /**
     * Holds the keys of failed rows for their retries, durably: each row may be attempted again after its delay
     * ({@code retry_at}), so a restart or another instance that takes over waits as long. Rows sent or dead-lettered
     * meanwhile are left alone.
     */
    void holdForRetry(Connection connection, Map<UUID, java.time.Duration> delays) throws SQLException;

    /**
     * One failed attempt.
     *
     * @param id     the event id
     * @param reason why it failed; stored on the row, so never the payload
     */
    record Failure(UUID id, String reason) {
    }
}
