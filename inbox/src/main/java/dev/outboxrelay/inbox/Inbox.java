package dev.outboxrelay.inbox;

import dev.outboxrelay.schema.Migrator;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Objects;
import javax.sql.DataSource;

/**
 * The idempotent-consumer side of outbox-relay: runs a consumer's work for an event <em>only if</em> that
 * consumer has not processed the event's id before, atomically with the work, in the consumer's own
 * PostgreSQL transaction. At-least-once delivery plus this check is effectively-once processing.
 *
 * <p>How: {@code INSERT ... ON CONFLICT DO NOTHING} of {@code (consumer, event id)} into the inbox table, then
 * the work on the same connection only when a row was inserted. Both commit or roll back together, so a failed
 * work leaves no entry and the redelivered event is processed again. Two deliveries of the same id racing each
 * other (e.g. during a consumer-group rebalance) serialize on the primary key: under READ COMMITTED the second
 * insert waits for the first transaction; if that commits, the second does nothing and its work does not run;
 * if it rolls back, the second inserts and runs the work. (Under REPEATABLE READ or SERIALIZABLE the second
 * transaction fails with a serialization error instead and must be retried, as usual at those levels.)
 *
 * <p>Entries live until {@link #purgeExpired purged} after their time to live. <b>The TTL must exceed the
 * longest window in which a duplicate can still arrive</b> (relay retries, consumer rebalances, replays from
 * the topic's retention); a duplicate arriving after its entry was purged is processed again.
 *
 * <pre>{@code
 * Inbox inbox = Inbox.builder().table("billing.inbox").consumer("billing").ttl(Duration.ofDays(14)).build();
 * inbox.migrator().migrate(connection);            // once, at startup (or give a DBA inbox.migrator().script())
 * Outcome<Void> outcome = inbox.process(dataSource, eventId, c -> { chargeCustomer(c, payload); return null; });
 * }</pre>
 *
 * <p>Instances are immutable and thread-safe. Create them with {@link #forTable} or {@link #builder()}.
 */
public interface Inbox {

    /** The table used unless told otherwise. */
    String DEFAULT_TABLE = "public.inbox";
    /**
     * The time to live used unless told otherwise: twice Kafka's default topic retention (7 days), because a
     * record can be replayed until its log segment is deleted, which happens some time after the retention.
     */
    Duration DEFAULT_TTL = Duration.ofDays(14);
    /** Longest accepted event id, in characters; a UUID has 36. */
    int MAX_EVENT_ID_LENGTH = 255;
    /** Longest accepted consumer name, in characters. */
    int MAX_CONSUMER_LENGTH = 200;

    /**
     * An inbox for {@code consumer} in table {@code [schema.]table} with the {@link #DEFAULT_TTL default TTL}.
     *
     * @throws IllegalArgumentException when the table name or consumer name is invalid
     */
    static Inbox forTable(String table, String consumer) {
        return builder().table(table).consumer(consumer).build();
    }

    /** A builder; only {@link Builder#consumer(String)} is required. */
    static Builder builder() {
        return new Builder();
    }

    /**
     * The migrator that creates and upgrades an inbox table (versioned, advisory-locked, recorded in the same
     * history table as the outbox schema). Its {@link Migrator#script() script()} is the SQL for a DBA.
     *
     * @throws IllegalArgumentException when the table name is invalid
     */
    static Migrator migrator(String table) {
        return InboxSchema.migrator(OutboxTable.parse(table));
    }

    /**
     * Runs {@code work} on {@code connection} if this consumer has not processed {@code eventId} yet, in the
     * caller's transaction. The caller owns the transaction: commit it to record the event as processed, roll
     * it back to forget it. <b>If this method throws, the transaction must be rolled back</b>: the entry was
     * inserted before the work ran, so committing after a failure would record an event whose work failed.
     * (No savepoint is taken on purpose: one per event would exhaust PostgreSQL's subtransaction cache when a
     * consumer processes a batch in one transaction.)
     *
     * @param connection a connection with auto-commit off
     * @param eventId    the event's id, e.g. the Kafka header {@code id} as UTF-8 text
     * @param work       the business work; runs at most once per event id and consumer
     * @return whether the work ran; {@link Outcome#firstResult()} is the work's return value when it ran and
     *         empty for a duplicate (use {@link #process(Connection, String, ResultCodec, Work)} to keep it)
     * @throws IllegalStateException    when auto-commit is on (the entry would commit before the work ran)
     * @throws IllegalArgumentException when the event id is blank or longer than {@link #MAX_EVENT_ID_LENGTH}
     * @throws SQLException             on database errors, including a missing inbox table
     * @throws X                        whatever the work throws
     */
    <T, X extends Exception> Outcome<T> process(Connection connection, String eventId, Work<T, X> work)
            throws SQLException, X;

    /**
     * Like {@link #process(Connection, String, Work)}, and also stores the work's non-null result, encoded with
     * {@code codec}, so that a duplicate gets the first result back in {@link Outcome#firstResult()} (for
     * example an idempotent API answering a retried request the same way).
     */
    <T, X extends Exception> Outcome<T> process(Connection connection, String eventId, ResultCodec<T> codec,
                                                Work<T, X> work) throws SQLException, X;

    /**
     * Like {@link #process(Connection, String, Work)} in a transaction of its own: takes a connection from
     * {@code dataSource}, commits when the work returns and rolls back when anything throws.
     */
    <T, X extends Exception> Outcome<T> process(DataSource dataSource, String eventId, Work<T, X> work)
            throws SQLException, X;

    /** Like {@link #process(Connection, String, ResultCodec, Work)} in a transaction of its own. */
    <T, X extends Exception> Outcome<T> process(DataSource dataSource, String eventId, ResultCodec<T> codec,
                                                Work<T, X> work) throws SQLException, X;

    /**
     * Deletes up to {@code batchSize} expired entries of this table (of every consumer), oldest first, in the
     * caller's transaction (or at once with auto-commit). Rows locked by another purge are skipped, so several
     * instances may purge concurrently.
     *
     * @return how many entries were deleted; fewer than {@code batchSize} means none are left
     * @throws IllegalArgumentException when {@code batchSize} is not positive
     */
    int purgeExpired(Connection connection, int batchSize) throws SQLException;

    /**
     * Deletes every expired entry of this table, {@code batchSize} per transaction so that no long transaction
     * holds locks or bloats the table, until a batch comes back short.
     *
     * @return how many entries were deleted in total
     * @throws IllegalArgumentException when {@code batchSize} is not positive
     */
    int purgeExpired(DataSource dataSource, int batchSize) throws SQLException;

    /** The migrator for this inbox's table; see {@link #migrator(String)}. */
    Migrator migrator();

    /** The table, as {@code schema.table}. */
    String table();

    /** The consumer name entries are recorded under. */
    String consumer();

    /** How long an entry is kept after processing before {@link #purgeExpired} may delete it. */
    Duration ttl();

    /**
     * A consumer's business work for one event, run on the inbox's connection and so inside its transaction.
     *
     * @param <T> the result, {@code Void} when there is none
     * @param <X> the checked exception the work may throw ({@code RuntimeException} when none)
     */
    @FunctionalInterface
    interface Work<T, X extends Exception> {

        /** Does the work using {@code connection}; must not commit, roll back or close it. */
        T run(Connection connection) throws X;
    }

    /** Builds an {@link Inbox}. Not thread-safe; the built inbox is. */
    final class Builder {

        private String table = DEFAULT_TABLE;
        private String consumer;
        private Duration ttl = DEFAULT_TTL;

        Builder() {
        }

        /** The inbox table as {@code [schema.]table}; default {@value Inbox#DEFAULT_TABLE}. */
        public Builder table(String table) {
            this.table = Objects.requireNonNull(table, "table");
            return this;
        }

        /**
         * The logical consumer name (required), e.g. the Kafka consumer group. Consumers sharing a table but
         * not a name each process every event once; keep the name stable across deployments, since a new name
         * forgets every event processed under the old one.
         */
        public Builder consumer(String consumer) {
            this.consumer = Objects.requireNonNull(consumer, "consumer");
            return this;
        }

        /**
         * How long an entry is kept after processing; default {@link Inbox#DEFAULT_TTL}. Must exceed the longest
         * redelivery window, or a late duplicate is processed again.
         */
        public Builder ttl(Duration ttl) {
            this.ttl = Objects.requireNonNull(ttl, "ttl");
            return this;
        }

        /**
         * The inbox.
         *
         * @throws IllegalArgumentException naming the offending value when the table, consumer or TTL is invalid
         * @throws IllegalStateException    when no consumer name was given
         */
        public Inbox build() {
            if (consumer == null) {
                throw new IllegalStateException("an inbox needs a consumer name: call consumer(...) before build()");
            }
            return new JdbcInbox(OutboxTable.parse(table), Names.consumer(consumer), Names.ttl(ttl));
        }
    }
}
