package dev.outboxrelay.core.acknowledge;

import dev.outboxrelay.core.db.TableAccess;
import dev.outboxrelay.schema.OutboxSql;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * With {@code --on-publish mark}: deletes rows sent longer ago than {@code --retention}, every
 * {@code --purge-interval}, in bounded statements so it never competes with publishing for long locks, on its
 * own short-lived connection. The same for every source; it runs only while {@code shouldRun} says so (the
 * active instance).
 */
public final class RetentionPurger implements AutoCloseable {

    /** Opens a new connection to the outbox's database; the purger closes it. */
    @FunctionalInterface
    public interface Sessions {
        Connection open() throws SQLException;
    }

    private static final Logger LOG = LoggerFactory.getLogger(RetentionPurger.class);
    /** Rows per DELETE: short statements, short locks. */
    public static final int DEFAULT_BATCH_SIZE = 5000;

    private final OutboxTable table;
    private final Duration retention;
    private final Duration interval;
    private final int batchSize;
    private final String sessionName;
    private final Sessions sessions;
    private final BooleanSupplier shouldRun;
    private final String purgeSql;
    /** Touched by the timer thread only. */
    private boolean missingDeleteReported;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "outbox-relay-purge");
        t.setDaemon(true);
        return t;
    });

    /**
     * A purger, not yet started.
     *
     * @param sessionName {@code application_name} of its session, so operators can tell it in pg_stat_activity
     */
    public RetentionPurger(OutboxTable table, Duration retention, Duration interval, int batchSize,
                           String sessionName, Sessions sessions, BooleanSupplier shouldRun) {
        this.table = table;
        this.retention = retention;
        this.interval = interval;
        this.batchSize = batchSize;
        this.sessionName = sessionName;
        this.sessions = sessions;
        this.shouldRun = shouldRun;
        this.purgeSql = OutboxSql.forTable(table).purgeSent();
    }

    /** Runs the first purge after one interval, then one interval after each. */
    public void start() {
        long period = interval.toMillis();
        timer.scheduleWithFixedDelay(this::purgeQuietly, period, period, TimeUnit.MILLISECONDS);
    }

    private void purgeQuietly() {
        if (!shouldRun.getAsBoolean()) {
            return;
        }
        try {
            long total = purge();
            if (total > 0) {
                LOG.info("Purged {} rows of {} sent more than {} ago", total, table, retention);
            }
        } catch (SQLException | RuntimeException e) {
            // The next run retries; rows kept a bit longer are harmless.
            LOG.warn("Purge of sent rows in {} failed: {}", table, e.toString());
        }
    }

    /**
     * Purges until a statement deletes less than a full batch; returns the number of rows deleted. A role without
     * DELETE on the table purges nothing: that is said once, as a WARN with the GRANT that fixes it, and the relay
     * goes on relaying (the table only grows).
     */
    public long purge() throws SQLException {
        long total = 0;
        try (Connection c = sessions.open()) {
            c.setAutoCommit(true);
            TableAccess.Missing missing = TableAccess.missingPrivileges(c, table, List.of("DELETE"));
            if (missing != null) {
                if (!missingDeleteReported) {
                    missingDeleteReported = true;
                    LOG.warn("Sent rows of {} are not purged: role '{}' lacks DELETE on it ({}); they are kept until"
                            + " it may delete them: {}", table, missing.role(), "--retention " + retention,
                            missing.grant());
                }
                return 0;
            }
            if (missingDeleteReported) {
                missingDeleteReported = false;
                LOG.info("Role may delete from {} now; purging sent rows older than {}", table, retention);
            }
            // No explicit sorts: the oldest sent rows are read in order from the sent_at index, never by sorting
            // every sent row (the outbox's statistics are stale by design).
            try (PreparedStatement ps = c.prepareStatement("SELECT set_config('application_name', ?, false),"
                    + " set_config('enable_sort', 'off', false)")) {
                ps.setString(1, sessionName);
                ps.execute();
            }
            int deleted;
            do {
                try (PreparedStatement ps = c.prepareStatement(purgeSql)) {
                    ps.setLong(1, retention.toMillis());
                    ps.setInt(2, batchSize);
                    deleted = ps.executeUpdate();
                }
                total += deleted;
            } while (deleted == batchSize && shouldRun.getAsBoolean());
        }
        return total;
    }

    /** Stops the timer, waiting for a running purge a bounded time. Idempotent. */
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
