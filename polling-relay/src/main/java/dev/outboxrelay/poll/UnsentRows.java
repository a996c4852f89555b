package dev.outboxrelay.poll;

import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.core.delivery.OnPoison;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;

/**
 * The poll source's reading, for another runner of the same rows (the Kafka Connect task): the oldest unsent rows of
 * an outbox table, or of one key-hash {@link Shard} of it, in {@code seq} order from the commit horizon's floor,
 * leaving out rows still in flight and the rows of parked keys. Reading from the floor, never after the last seq
 * seen, is what keeps a transaction that commits late from being skipped. One instance per reading session; not
 * thread-safe.
 */
public interface UnsentRows extends AutoCloseable {

    /**
     * One key-hash shard of the table: the rows whose {@code aggregate_id} hashes to {@code index} modulo
     * {@code count} (see {@code OutboxSql#shardOf}), so every aggregate belongs to exactly one shard.
     */
    record Shard(int index, int count) {
        public Shard {
            if (count < 1 || index < 0 || index >= count) {
                throw new IllegalArgumentException("shard " + index + " of " + count + " does not exist");
            }
        }

        @Override
        public String toString() {
            return index + "/" + count;
        }
    }

    /**
     * What one read returned: the rows as pipeline items, and their seqs in the same order (to leave them out of
     * later reads while they are in flight).
     */
    record Batch(List<Item> items, long[] seqs) {
        public boolean isEmpty() {
            return items.isEmpty();
        }
    }

    /**
     * A reader on {@code c}, which it prepares as a relay session named {@code applicationName} (see
     * {@code pg_stat_activity}) and subscribes to the table's insert notifications.
     *
     * @param shard the shard to read, or null for the whole table
     */
    static UnsentRows open(Connection c, OutboxTable table, OnPoison onPoison, Shard shard, String applicationName)
            throws SQLException {
        return JdbcUnsentRows.open(c, table, onPoison, shard, applicationName);
    }

    /**
     * Why this session cannot relay the table, or null: a standby server, a missing table or column, a missing
     * privilege ({@code DELETE} only when {@code deletes}). Such problems do not pass by reconnecting at once.
     */
    String sessionProblem(boolean deletes) throws SQLException;

    /** Starts reading: the commit horizon from scratch, and the insert notifications. */
    void start() throws SQLException;

    /**
     * The oldest unsent rows, leaving out the seqs in {@code inFlight} and the rows of {@code parkedKeys}: at most
     * {@code limit} rows, cut once they hold about {@code maxBytes} (always one row at least).
     */
    Batch next(long[] inFlight, String[] parkedKeys, int limit, long maxBytes) throws SQLException;

    /** Waits up to {@code millis} for a notification that rows were committed; returns at once if one is pending. */
    void awaitInserts(int millis) throws SQLException;

    /** Closes the statements; the connection stays the caller's. */
    @Override
    void close();
}
