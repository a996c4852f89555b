package dev.outboxrelay.poll;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes rows sent longer ago than the retention, on a slow timer and in bounded statements so it never
 * competes with publishing for long locks. Runs only on the active poller, on its own short-lived connection.
 */
final class Purger implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Purger.class);

    private final PollSettings settings;
    private final ConnectionFactory connections;
    private final OutboxQueries queries;
    private final BooleanSupplier shouldRun;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "outbox-relay-purge");
        t.setDaemon(true);
        return t;
    });

    Purger(PollSettings settings, ConnectionFactory connections, OutboxQueries queries, BooleanSupplier shouldRun) {
        this.settings = settings;
        this.connections = connections;
        this.queries = queries;
        this.shouldRun = shouldRun;
    }

    void start() {
        long period = settings.purgeInterval().toMillis();
        timer.scheduleWithFixedDelay(this::purgeQuietly, period, period, TimeUnit.MILLISECONDS);
    }

    private void purgeQuietly() {
        if (!shouldRun.getAsBoolean()) {
            return;
        }
        try {
            long total = purge();
            if (total > 0) {
                LOG.info("Purged {} rows of {} sent more than {} ago", total, settings.table(), settings.retention());
            }
        } catch (SQLException | RuntimeException e) {
            // The next run retries; rows kept a bit longer are harmless.
            LOG.warn("Purge of sent rows in {} failed: {}", settings.table(), e.toString());
        }
    }

    /** Purges until a statement deletes less than a full batch; returns the number of rows deleted. */
    long purge() throws SQLException {
        long total = 0;
        try (Connection c = connections.connect()) {
            c.setAutoCommit(true);
            // Named like the relay's other sessions, and planned without sorts: the oldest sent rows are read
            // in order from the sent_at index, never by sorting every sent row.
            queries.prepareSession(c, settings.relayName());
            int deleted;
            do {
                deleted = queries.purge(c, settings.retention(), settings.purgeBatchSize());
                total += deleted;
            } while (deleted == settings.purgeBatchSize() && shouldRun.getAsBoolean());
        }
        return total;
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
