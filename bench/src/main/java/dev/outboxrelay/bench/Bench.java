package dev.outboxrelay.bench;

import dev.outboxrelay.testkit.KafkaProcess;
import dev.outboxrelay.testkit.PostgresOptions;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** One benchmark run: starts PostgreSQL and Kafka, measures the ceilings, then every contender in turn. */
final class Bench {

    /** Contender slugs in run order. */
    static final List<String> SLUGS = List.of("naive", "batched", "debezium", "floor-poll", "floor-cdc", "poll-mark",
            "poll-delete", "cdc", "cdc-delete", "poll-eos", "cdc-eos", "connect");

    /** PostgreSQL settings on top of the test kit's (fsync and full_page_writes off, synchronous_commit on). */
    static final Map<String, String> PG_SETTINGS = Map.of(
            // A paused (SIGSTOP) CDC relay must keep its replication connection while the backlog is written.
            "wal_sender_timeout", "10min");

    private static final Logger LOG = LoggerFactory.getLogger(Bench.class);

    /**
     * How to run.
     *
     * @param config          sizes
     * @param relayJar        the shaded relay jar run as a subprocess
     * @param relayJvmOptions JVM options of the relay subprocess
     * @param only            slugs to run (all when empty)
     * @param command         the command line, for the result file
     * @param connectPlugin   the connector's plugin directory ({@code plugin.path} of the {@code connect} contender's
     *                        worker), null when not built
     */
    record Options(BenchConfig config, Path relayJar, List<String> relayJvmOptions, List<String> relayArgs,
                   Set<String> only, String command, Path connectPlugin) {
    }

    /** The bench's PostgreSQL: the test kit's server with {@link #PG_SETTINGS}. */
    static TestPostgres startPostgres() {
        PostgresOptions pgOptions = PostgresOptions.defaults();
        for (Map.Entry<String, String> e : PG_SETTINGS.entrySet()) {
            pgOptions = pgOptions.withSetting(e.getKey(), e.getValue());
        }
        return TestPostgres.start(pgOptions);
    }

    /** The server settings a result's notes report, as the server reports them. */
    private static final List<String> NOTED_SETTINGS = List.of("fsync", "synchronous_commit", "full_page_writes",
            "wal_level", "shared_buffers", "wal_sender_timeout");

    /** How {@link #startPostgres()}'s server is set up, for a result's notes. */
    static String postgresNote(TestPostgres postgres) {
        return "PostgreSQL: " + postgres.version() + ", test-kit server on loopback: " + NOTED_SETTINGS.stream()
                .map(name -> name + "=" + postgres.setting(name)).collect(Collectors.joining(", "));
    }

    /**
     * Everything measured; {@code producerMicros} is the raw producer's CPU per record during K (the bench JVM's
     * process CPU, which does nothing else meanwhile), the lower of start and end.
     */
    record Result(Options options, Instant started, Duration wall, double kafkaRate, double producerMicros,
                  double insertRate,
                  double steadyBaseRate, double databaseInsertRate, Map<String, Outcome> outcomes, String loadStart, String loadEnd, List<String> notes, Path logs) {

        boolean nothingLost() {
            return outcomes.values().stream().allMatch(o -> o.verdict().nothingLost());
        }
    }

    private Bench() {
    }

    static Result run(Options options) throws Exception {
        BenchConfig config = options.config();
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        String loadStart = MachineNotes.loadAverage();
        Path logs = Files.createTempDirectory("outbox-bench-logs-");
        try (TestPostgres postgres = startPostgres();
             KafkaProcess kafka = KafkaProcess.start(logs.resolve("broker.log"))) {
            List<String> notes = new ArrayList<>(MachineNotes.describe());
            notes.add(postgresNote(postgres));
            notes.add("Kafka: one KRaft broker (test-kit TestKafka) in its own JVM with Kafka's default server"
                    + " JVM options " + KafkaProcess.JVM_OPTIONS + ", " + config.partitions()
                    + " partitions per topic, replication factor 1");
            notes.add("relay: " + options.relayJar() + " as a subprocess, JVM options " + options.relayJvmOptions());
            if (options.only().isEmpty() || options.only().contains("connect")) {
                notes.add("connect: one Kafka Connect " + org.apache.kafka.common.utils.AppInfoParser.getVersion()
                        + " worker (distributed mode) in its own JVM with connect-distributed.sh's JVM options "
                        + dev.outboxrelay.testkit.ConnectWorker.PRODUCTION_JVM_OPTIONS + ", the plugin from "
                        + options.connectPlugin() + ", tasks.max=1, the worker producer's defaults");
            }
            notes.add("writer: " + config.writers() + " thread (warm-ups, backlogs and the stress phase: "
                    + config.fillThreads() + " threads), " + OutboxLoad.TX_ROWS + "-row transactions, "
                    + config.aggregates() + " aggregates, ~" + Payloads.json(123_456, Payloads.aggregateId(123)).length()
                    + "-byte JSON payload");
            ScenarioRunner runner = new ScenarioRunner(config, postgres, kafka);

            kafka.createTopic("bench-ceiling-k", config.partitions());
            Ceilings.ProducerRun kRunStart = kafkaCeiling(config, kafka);
            double kStart = kRunStart.rate();
            double iStart = insertCeiling(config, runner, config.writers());
            double dbStart = insertCeiling(config, runner, config.fillThreads());
            LOG.info("ceilings at start: K {} records/s, I {} rows/s, {} writers {} rows/s", Math.round(kStart),
                    Math.round(iStart), config.fillThreads(), Math.round(dbStart));

            Map<String, Outcome> outcomes = new LinkedHashMap<>();
            String bootstrap = kafka.bootstrapServers();
            for (String slug : SLUGS) {
                if (!options.only().isEmpty() && !options.only().contains(slug)) {
                    continue;
                }
                ScenarioRunner.Role role = role(slug);
                ScenarioRunner.ContenderFactory factory = switch (role) {
                    case RELAY -> slug.equals("connect") ? (db, topic) -> new ConnectContender(
                            options.connectPlugin(), connectClasspath(), db, bootstrap, topic,
                            logs.resolve(slug + ".log"))
                            : (db, topic) -> new RelayProcess(relayMode(slug), options.relayJar(),
                            options.relayJvmOptions(), options.relayArgs(), db, bootstrap, topic,
                            logs.resolve(slug + ".log"));
                    // Baselines and floors run in their own JVM, so that their CPU and memory are measured the
                    // same way as the relay's.
                    case BASELINE, FLOOR -> (db, topic) -> {
                        if (slug.equals("debezium")) {
                            // What Debezium's own publication.autocreate.mode=filtered creates (every column and
                            // operation), made as the owner because the relay role may not: the migrated
                            // publication is the relay's, limited to what the relay reads, and not a stock setup.
                            db.execute("CREATE PUBLICATION " + StockDebezium.PUBLICATION + " FOR TABLE public.outbox");
                        }
                        // A floor gets the relay's JVM options (it is the relay's floor); a baseline the JVM's
                        // defaults, as the application it would be part of.
                        return new ChildContender(slug, role == ScenarioRunner.Role.FLOOR ? options.relayJvmOptions()
                                : List.of(), db, bootstrap, topic, logs.resolve(slug + ".log"));
                    };
                };
                Duration cap = slug.equals("naive") ? config.naiveCap() : null;
                outcomes.put(slug, runner.run(slug, factory, role, iStart, cap));
            }
            // A ceiling is the best the machine managed: on a shared machine start and end differ, so measure
            // both and report both.
            Ceilings.ProducerRun kRunEnd = kafkaCeiling(config, kafka);
            double kEnd = kRunEnd.rate();
            double iEnd = insertCeiling(config, runner, config.writers());
            double dbEnd = insertCeiling(config, runner, config.fillThreads());
            LOG.info("ceilings at end: K {} records/s, I {} rows/s, {} writers {} rows/s", Math.round(kEnd),
                    Math.round(iEnd), config.fillThreads(), Math.round(dbEnd));
            notes.add(String.format(java.util.Locale.ROOT, "ceilings at start / end: K %,.0f / %,.0f records/s,"
                    + " I %,.0f / %,.0f rows/s, %d writers %,.0f / %,.0f rows/s (the higher is used; the steady"
                    + " state offered 50 %% of I at start)", kStart, kEnd, iStart, iEnd, config.fillThreads(),
                    dbStart, dbEnd));
            return new Result(options, started, Duration.ofNanos(System.nanoTime() - t0), Math.max(kStart, kEnd),
                    Math.min(kRunStart.cpuMicrosPerRecord(), kRunEnd.cpuMicrosPerRecord()),
                    Math.max(iStart, iEnd), iStart, Math.max(dbStart, dbEnd), outcomes, loadStart, MachineNotes.loadAverage(), notes, logs);
        }
    }

    private static Ceilings.ProducerRun kafkaCeiling(BenchConfig config, KafkaProcess kafka) {
        return Ceilings.kafkaProducerRate(kafka.bootstrapServers(), "bench-ceiling-k", config.kafkaRecords(),
                config.aggregates());
    }

    private static double insertCeiling(BenchConfig config, ScenarioRunner runner, int writers) throws Exception {
        TestDatabase db = runner.freshDatabase("ceiling_i");
        try {
            OutboxLoad load = new OutboxLoad(db, config.aggregates());
            load.writeRows(config.warmup(), writers); // warm the JIT and the connections
            return Ceilings.insertRate(load, config.insertRows(), writers);
        } finally {
            db.drop();
        }
    }

    /**
     * The Connect worker's classpath: this jar when run as {@code java -jar} (it holds connect-runtime, and not the
     * connector, which comes from the plugin), else the test classpath without the project's own classes.
     */
    private static String connectClasspath() {
        String cp = System.getProperty("java.class.path");
        return !cp.contains(java.io.File.pathSeparator) && cp.endsWith(".jar") ? cp
                : dev.outboxrelay.testkit.ConnectWorker.workerClasspath();
    }

    static ScenarioRunner.Role role(String slug) {
        return switch (slug) {
            case "naive", "batched", "debezium" -> ScenarioRunner.Role.BASELINE;
            case "floor-poll", "floor-cdc" -> ScenarioRunner.Role.FLOOR;
            default -> ScenarioRunner.Role.RELAY;
        };
    }

    private static RelayProcess.Mode relayMode(String slug) {
        return switch (slug) {
            case "poll-mark" -> RelayProcess.Mode.POLL_MARK;
            case "poll-delete" -> RelayProcess.Mode.POLL_DELETE;
            case "cdc" -> RelayProcess.Mode.CDC;
            case "cdc-delete" -> RelayProcess.Mode.CDC_DELETE;
            case "poll-eos" -> RelayProcess.Mode.POLL_EXACTLY_ONCE;
            case "cdc-eos" -> RelayProcess.Mode.CDC_EXACTLY_ONCE;
            default -> throw new IllegalArgumentException("unknown contender " + slug);
        };
    }
}
