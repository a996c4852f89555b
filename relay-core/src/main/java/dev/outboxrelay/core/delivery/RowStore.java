package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.acknowledge.Acknowledger;
import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Where the {@link DeliveryPipeline} writes what became of its rows: marked (or deleted) once Kafka acknowledged
 * them, or charged a failed attempt. Calls block until the write is done (retrying the database meanwhile, so
 * nothing is settled past an unwritten acknowledgement); only the settling thread calls them, in settling order.
 */
public interface RowStore extends AutoCloseable {

    /** Opens a new connection for the row store; called again after a connection broke. */
    @FunctionalInterface
    interface Connector {
        Connection open() throws SQLException;
    }

    /**
     * A row store on one connection of its own, through {@code acknowledger}; a broken connection is replaced and
     * the write retried with backoff until the database answers or the thread is interrupted.
     */
    static RowStore jdbc(Acknowledger acknowledger, Connector connector) {
        return new JdbcRowStore(acknowledger, connector);
    }

    /** Marks (or deletes) rows Kafka acknowledged. */
    void acknowledge(List<UUID> ids) throws InterruptedException;

    /**
     * Marks {@code acked} and records {@code failures} (one attempt per entry); returns the ids dead-lettered by
     * this call, i.e. whose attempts reached {@code maxAttempts}.
     */
    Collection<UUID> record(List<UUID> acked, List<Failure> failures, int maxAttempts) throws InterruptedException;

    /** Holds failed rows' keys for their retries in the table too ({@link Acknowledger#holdForRetry}). */
    void holdForRetry(Map<UUID, java.time.Duration> delays) throws InterruptedException;

    /** The attempts recorded so far of those of {@code ids} that are still unsent and not dead letters. */
    Map<UUID, Integer> attempts(Collection<UUID> ids) throws InterruptedException;

    /** Closes the connection, if any; the next call opens a new one. */
    @Override
    void close();
}
