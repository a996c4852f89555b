package dev.outboxrelay.daemon;

import dev.outboxrelay.core.SourceInspector;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every {@code --probe-interval}: one statement on the outbox table (backlog, oldest age, dead letters), the
 * source's own state through its {@link SourceInspector} (the CDC slot), and a Kafka cluster query. Their outcome feeds the gauges and readiness,
 * so scrapes and health checks never hit the database themselves.
 */
final class Probes implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Probes.class);
    /** The PostgreSQL major versions every build runs the contract suites on (README, "Requirements"). */
    static final int OLDEST_TESTED_POSTGRES = 14;
    static final int NEWEST_TESTED_POSTGRES = 18;

    private final ConnectionFactory database;
    private final OutboxTable table;
    private final SourceInspector inspector;
    private final KafkaProbe kafka;
    private final RelayMetrics metrics;
    private final Duration interval;
    private final ScheduledExecutorService timer;
    private Connection connection;
    private volatile String databaseProblem = "not checked yet";
    private volatile String kafkaProblem = "not checked yet";
    private boolean kafkaWarned;
    private boolean databaseWarned;
    private boolean versionReported;

    Probes(ConnectionFactory database, OutboxTable table, SourceInspector inspector, KafkaProbe kafka, RelayMetrics metrics,
           Duration interval) {
        this.database = database;
        this.table = table;
        this.inspector = inspector;
        this.kafka = kafka;
        this.metrics = metrics;
        this.interval = interval;
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "outbox-relay-probe");
            t.setDaemon(true);
            return t;
        });
    }

    void start() {
        timer.scheduleWithFixedDelay(this::probe, 0, interval.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** Null when the last database probe succeeded, otherwise why it failed. */
    String databaseProblem() {
        return databaseProblem;
    }

    /** Null when the last Kafka probe succeeded, otherwise why it failed. */
    String kafkaProblem() {
        return kafkaProblem;
    }

    private void probe() {
        try {
            probeDatabase();
            String k = kafka.problem();
            if (k != null && !kafkaWarned) {
                LOG.warn("Kafka probe failed: {}; not ready", k);
                kafkaWarned = true;
            } else if (k == null && kafkaWarned) {
                LOG.info("Kafka reachable again");
                kafkaWarned = false;
            }
            kafkaProblem = k;
        } catch (RuntimeException e) {
            LOG.warn("Probe failed: {}", e.toString()); // never let the schedule die
        }
    }

    private void probeDatabase() {
        String problem;
        String detail = null;
        try {
            if (connection == null || connection.isClosed()) {
                connection = database.open();
                connection.setAutoCommit(true);
                // A partitioned network must fail the probe, not hang it.
                connection.setNetworkTimeout(Runnable::run, (int) Math.max(5000, interval.toMillis() * 2));
                if (!versionReported) {
                    DatabaseMetaData md = connection.getMetaData();
                    String warning = versionWarning(md.getDatabaseMajorVersion(), md.getDatabaseProductVersion());
                    if (warning != null) {
                        LOG.warn(warning);
                    } else {
                        LOG.info("Database: PostgreSQL {}", md.getDatabaseProductVersion());
                    }
                    versionReported = true;
                }
            }
            metrics.sampled(OutboxStats.sample(connection, table));
            SourceInspector.Inspection source = inspector.inspect(connection);
            metrics.sourceSampled(source.gauges());
            problem = source.notReady();
        } catch (SQLException e) {
            closeConnection();
            // /health/ready says what is wrong, not where: hosts, ports and server messages go to the log only.
            problem = OutboxStats.schemaOutdated(e)
                    ? "the outbox table " + table + " is not at the current schema version: run migrate"
                    : "unreachable";
            detail = e.getMessage();
        }
        if (problem != null && !problem.equals(databaseProblem)) {
            LOG.warn("Database probe failed: {}{}; not ready", problem, detail == null ? "" : " (" + detail + ")");
            databaseWarned = true;
        } else if (problem == null && databaseWarned) {
            LOG.info("Database reachable again");
            databaseWarned = false;
        }
        databaseProblem = problem;
    }

    /** Null for a version the builds test, else the WARN to log once. */
    static String versionWarning(int major, String version) {
        if (major >= OLDEST_TESTED_POSTGRES && major <= NEWEST_TESTED_POSTGRES) {
            return null;
        }
        return "Database: PostgreSQL " + version + " is outside the versions outbox-relay is tested on ("
                + OLDEST_TESTED_POSTGRES + " to " + NEWEST_TESTED_POSTGRES + "); it may work, but nothing checked it";
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // broken already
            }
            connection = null;
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeConnection();
        kafka.close();
    }
}
