package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.Heartbeat;
import dev.outboxrelay.core.acknowledge.Acknowledger;
import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RowStore} on the settling thread's own connection. A failed write is retried on a new connection after a
 * jittered backoff: the pipeline settles nothing after it meanwhile, so no position moves past an unmarked row.
 */
final class JdbcRowStore implements RowStore {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcRowStore.class);
    private static final Duration MIN_BACKOFF = Duration.ofMillis(200);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);

    @FunctionalInterface
    private interface Write<T> {
        T on(Connection c) throws SQLException;
    }

    private final Acknowledger acknowledger;
    private final Connector connector;
    private Connection connection;
    private final NotYetVisible notYetVisible = new NotYetVisible();

    JdbcRowStore(Acknowledger acknowledger, Connector connector) {
        this.acknowledger = acknowledger;
        this.connector = connector;
    }

    @Override
    public void acknowledge(List<UUID> ids) throws InterruptedException {
        if (!ids.isEmpty() || !notYetVisible.isEmpty()) {
            retrying("mark " + ids.size() + " published event(s)", c -> {
                mark(c, ids);
                return null;
            });
        }
    }

    /** Marks {@code ids} and those an earlier mark could not see yet ({@link NotYetVisible}). */
    private void mark(Connection c, List<UUID> ids) throws SQLException {
        if (ids.isEmpty() && notYetVisible.isEmpty()) {
            return;
        }
        List<UUID> all = notYetVisible.with(ids, System.nanoTime());
        if (all.isEmpty()) {
            return;
        }
        int changed = acknowledger.acknowledge(c, all);
        if (changed >= all.size()) {
            notYetVisible.allSeen();
            return;
        }
        // Fewer rows changed than named: sent before (present), or not visible to this session yet.
        int waiting = notYetVisible.size();
        notYetVisible.missed(all, acknowledger.present(c, all), System.nanoTime());
        if (notYetVisible.size() != waiting) {
            LOG.debug("{} acknowledged row(s) not visible to the relay's session yet; marked with the next batches",
                    notYetVisible.size());
        }
    }

    @Override
    public Collection<UUID> record(List<UUID> acked, List<Failure> failures, int maxAttempts)
            throws InterruptedException {
        return retrying("mark " + acked.size() + " published and record " + failures.size() + " failed event(s)",
                c -> {
                    mark(c, acked);
                    return failures.isEmpty() ? List.of() : acknowledger.recordFailures(c, failures, maxAttempts);
                });
    }

    @Override
    public void holdForRetry(Map<UUID, Duration> delays) throws InterruptedException {
        if (!delays.isEmpty()) {
            retrying("hold " + delays.size() + " failed event(s) for their retry", c -> {
                acknowledger.holdForRetry(c, delays);
                return null;
            });
        }
    }

    @Override
    public Map<UUID, Integer> attempts(Collection<UUID> ids) throws InterruptedException {
        return retrying("read the attempts of " + ids.size() + " failed event(s)",
                c -> acknowledger.attempts(c, ids));
    }

    private <T> T retrying(String what, Write<T> write) throws InterruptedException {
        Backoff backoff = Backoff.exponential(MIN_BACKOFF, MAX_BACKOFF);
        while (true) {
            Heartbeat.beat(); // a database outage is waited out here, not a stuck thread
            try {
                return write.on(connection());
            } catch (SQLException e) {
                close();
                LOG.warn("Cannot {} in the database ({}); retrying", what, e.getMessage());
                Thread.sleep(backoff.nextDelayMillis()); // the pipeline's close() interrupts this
            }
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = connector.open();
            connection.setAutoCommit(true);
        }
        return connection;
    }

    @Override
    public void close() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // already broken
            }
            connection = null;
        }
    }
}
