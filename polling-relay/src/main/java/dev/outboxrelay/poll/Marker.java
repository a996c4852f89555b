package dev.outboxrelay.poll;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.acknowledge.Acknowledger;
import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import dev.outboxrelay.core.delivery.OnPoison;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes the outcome of acknowledged batches to the table (mark sent or delete, record failures, dead-letter),
 * on its own connection and thread, strictly in the order batches are handed over. The fetching session thus
 * fetches and sends the next batches while the previous ones are being marked: marking costs as much database
 * time as fetching, and doing both on one session left Kafka idle half the time.
 *
 * <p>Only rows Kafka acknowledged reach this class, so marking them is correct even if the fetching session
 * lost its lock meanwhile. A batch stays excluded from fetching until its marking future completed.
 */
final class Marker implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Marker.class);
    private static final long CLOSE_WAIT_SECONDS = 10;

    private final PollSettings settings;
    private final Acknowledger acknowledger;
    private final BatchPublisher batches;
    private final RelayListener listener;
    private final Connection connection;
    private final ExecutorService thread = Executors.newSingleThreadExecutor(r -> {
        Thread t = new Thread(r, "outbox-relay-mark");
        t.setDaemon(true);
        return t;
    });

    private Marker(PollSettings settings, Acknowledger acknowledger, BatchPublisher batches, RelayListener listener,
                   Connection connection) {
        this.settings = settings;
        this.acknowledger = acknowledger;
        this.batches = batches;
        this.listener = listener;
        this.connection = connection;
    }

    /** Opens the marking session for one leadership term. */
    static Marker open(PollSettings settings, ConnectionFactory connections, OutboxQueries queries,
                       Acknowledger acknowledger, BatchPublisher batches, RelayListener listener) throws SQLException {
        Connection c = connections.connect();
        try {
            c.setAutoCommit(true);
            queries.prepareSession(c, settings.relayName());
            return new Marker(settings, acknowledger, batches, listener, c);
        } catch (SQLException | RuntimeException e) {
            c.close();
            throw e;
        }
    }

    /** Queues the database work of a settled batch; the future fails with the {@link SQLException} if any. */
    CompletableFuture<Void> mark(Batch batch, BatchPublisher.Outcome outcome) {
        return CompletableFuture.runAsync(() -> {
            try {
                write(batch, outcome);
            } catch (SQLException e) {
                throw new CompletionException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CompletionException(e);
            }
        }, thread);
    }

    /** Waits for a marking future; rethrows a database failure as it was. */
    static void join(CompletableFuture<Void> marked) throws SQLException, InterruptedException {
        try {
            marked.get();
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof SQLException sql) {
                throw sql;
            }
            if (cause instanceof InterruptedException) {
                throw new InterruptedException("marking interrupted");
            }
            if (cause instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new IllegalStateException(cause);
        }
    }

    private void write(Batch batch, BatchPublisher.Outcome outcome) throws SQLException, InterruptedException {
        long start = System.nanoTime();
        List<Failure> failures = batches.sendToDeadLetterTopic(outcome);
        int marked = acknowledger.acknowledge(connection, outcome.acknowledged());
        if (!failures.isEmpty()) {
            Collection<UUID> dead = acknowledger.recordFailures(connection, failures, settings.maxAttempts());
            for (UUID id : dead) {
                String reason = failures.stream().filter(f -> f.id().equals(id)).findFirst().map(Failure::reason)
                        .orElse("unknown");
                listener.deadLettered(id, reason);
                if (settings.onPoison() == OnPoison.BLOCK) {
                    LOG.error("Dead-lettered event {} after {} attempts; later events of its key wait until an"
                            + " operator resolves it: {}", id, settings.maxAttempts(), reason);
                } else {
                    LOG.warn("Dead-lettered event {} after {} attempts: {}", id, settings.maxAttempts(), reason);
                }
            }
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - batch.startedNanos);
        listener.batchPublished(outcome.acknowledged().size(), elapsed);
        if (LOG.isDebugEnabled()) {
            LOG.debug("Batch of {} rows: {} acknowledged ({} marked), {} failed, {} held back, in {} ms"
                    + " (fetch {} ms, send {} ms, mark {} ms)", batch.fetched, outcome.acknowledged().size(), marked,
                    failures.size(), batch.held, elapsed.toMillis(), batch.fetchMicros / 1000, batch.sendMicros / 1000,
                    (System.nanoTime() - start) / 1_000_000);
        }
    }

    /**
     * Lets the queued batches finish marking for a bounded time (each marked row is one fewer duplicate after a
     * takeover), then closes the session.
     */
    @Override
    public void close() {
        thread.shutdown();
        try {
            if (!thread.awaitTermination(CLOSE_WAIT_SECONDS, TimeUnit.SECONDS)) {
                thread.shutdownNow();
            }
        } catch (InterruptedException e) {
            thread.shutdownNow();
            Thread.currentThread().interrupt();
        }
        try {
            connection.close();
        } catch (SQLException e) {
            LOG.debug("Closing the marking session failed: {}", e.toString());
        }
    }
}
