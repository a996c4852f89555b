package dev.outboxrelay.cdc;

import dev.outboxrelay.core.acknowledge.Acknowledger;
import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import dev.outboxrelay.core.delivery.Backoff;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link RowStore} on the settling thread's own connection, through relay-core's {@link Acknowledger}. Retries
 * the database with backoff until it answers; nothing is confirmed to the slot meanwhile.
 */
final class JdbcRowStore implements RowStore {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcRowStore.class);

    private final Acknowledger acknowledger;
    private final Database database;
    private final BooleanSupplier closed;
    private Connection connection;

    JdbcRowStore(CdcSettings settings, Database database, BooleanSupplier closed) {
        this.acknowledger = Acknowledger.forTable(settings.table(), settings.onPublish());
        this.database = database;
        this.closed = closed;
    }

    @Override
    public void acknowledge(List<UUID> ids) throws InterruptedException {
        if (ids.isEmpty()) {
            return;
        }
        Backoff backoff = Backoff.exponential(Duration.ofMillis(200), Duration.ofSeconds(10));
        while (true) {
            try {
                acknowledger.acknowledge(connection(), ids);
                return;
            } catch (SQLException e) {
                close();
                LOG.warn("Cannot mark {} published event(s) in the database ({}); retrying", ids.size(),
                        e.getMessage());
                sleep(backoff.nextDelayMillis());
            }
        }
    }

    @Override
    public Map<UUID, Integer> attempts(Collection<UUID> ids) throws InterruptedException {
        Backoff backoff = Backoff.exponential(Duration.ofMillis(200), Duration.ofSeconds(10));
        while (true) {
            try {
                return acknowledger.attempts(connection(), ids);
            } catch (SQLException e) {
                close();
                LOG.warn("Cannot read the attempts of {} failed event(s) ({}); retrying", ids.size(), e.getMessage());
                sleep(backoff.nextDelayMillis());
            }
        }
    }

    @Override
    public Collection<UUID> record(List<UUID> acked, List<Failure> failures, int maxAttempts)
            throws InterruptedException {
        Backoff backoff = Backoff.exponential(Duration.ofMillis(200), Duration.ofSeconds(10));
        while (true) {
            try {
                Connection c = connection();
                acknowledger.acknowledge(c, acked);
                return failures.isEmpty() ? List.of() : acknowledger.recordFailures(c, failures, maxAttempts);
            } catch (SQLException e) {
                close();
                LOG.warn("Cannot mark {} published event(s) in the database ({}); retrying", acked.size(),
                        e.getMessage());
                sleep(backoff.nextDelayMillis());
            }
        }
    }

    /** The connection used for marking, by the settling thread only. */
    private Connection connection() throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = database.open();
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

    private void sleep(long millis) throws InterruptedException {
        if (closed.getAsBoolean()) {
            throw new InterruptedException("relay is closing");
        }
        Thread.sleep(millis);
    }
}
