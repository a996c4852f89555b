package dev.outboxrelay.cdc;

import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Where the CDC pipeline writes what became of its rows: marked (or deleted) once Kafka acknowledged them, or
 * charged a failed attempt. Calls block until the write is done (retrying the database meanwhile); only the
 * settling thread calls them, in settling order.
 */
interface RowStore extends AutoCloseable {

    /** Marks (or deletes) rows Kafka acknowledged. */
    void acknowledge(List<UUID> ids) throws InterruptedException;

    /**
     * Marks {@code acked} and records {@code failures} (one attempt per entry); returns the ids dead-lettered by
     * this call, i.e. whose attempts reached {@code maxAttempts}.
     */
    Collection<UUID> record(List<UUID> acked, List<Failure> failures, int maxAttempts) throws InterruptedException;

    /** The attempts recorded so far of those of {@code ids} that are still unsent and not dead letters. */
    Map<UUID, Integer> attempts(Collection<UUID> ids) throws InterruptedException;

    /** Closes the connection, if any; the next call opens a new one. */
    @Override
    void close();
}
