package dev.outboxrelay.cli;

import dev.outboxrelay.core.SourceFactory;
import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.InstanceOptions;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.OptionType;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.core.delivery.Warmup;
import dev.outboxrelay.core.publish.ExactlyOnceCheck;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.daemon.DaemonSettings;
import dev.outboxrelay.daemon.RelayDaemon;
import dev.outboxrelay.daemon.Tracing;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code run}: validates the configuration, then wires a {@link RelayDaemon} (source chosen by {@code --mode},
 * health and metrics endpoint, probes) to SIGTERM. The source comes from the {@link SourceFactory} registered
 * for the mode; without one, the command fails instead of pretending to relay.
 */
final class RunCommand implements Cli.Command {

    private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

    private static final java.time.Duration EXACTLY_ONCE_CHECK_TIMEOUT = java.time.Duration.ofSeconds(15);
    /** Bounds the start-up warm-up on a starved machine; what ran by then is compiled all the same. */
    private static final java.time.Duration WARMUP_LIMIT = java.time.Duration.ofSeconds(10);

    private final Map<String, SourceFactory> factories;
    private final ConfigSpec spec;

    RunCommand(Map<String, SourceFactory> factories) {
        this.factories = Map.copyOf(factories);
        List<OptionSet> common = List.of(CliOptions.GENERAL, CliOptions.RUN, DatabaseOptions.CONNECTION,
                KafkaOptions.SET);
        List<OptionSet> sets = new ArrayList<>(common);
        factories.values().forEach(f -> sets.add(f.options()));
        sets.add(OptionSet.builder("Modes").check(new OtherModesOptions(common, this.factories)).build());
        this.spec = ConfigSpec.of(sets);
    }

    @Override
    public String name() {
        return "run";
    }

    @Override
    public String description() {
        return "Relay outbox rows to Kafka until stopped (SIGTERM drains the in-flight batch).";
    }

    @Override
    public ConfigSpec spec() {
        return spec;
    }

    @Override
    public List<String> examples() {
        return List.of("RELAY_DB_PASSWORD=... " + Cli.NAME + " run --mode poll \\",
                "    --db-url jdbc:postgresql://db:5432/app --db-user relay --kafka-bootstrap kafka:9092",
                Cli.NAME + " run --config /etc/outbox-relay/relay.properties --dry-run");
    }

    @Override
    public int execute(RelayConfig config, PrintStream out, PrintStream err) throws Exception {
        if (config.get(CliOptions.DRY_RUN)) {
            config.dump().forEach(out::println);
            return Main.OK;
        }
        String mode = OptionType.nameOf(config.get(CliOptions.MODE));
        SourceFactory factory = factories.get(mode);
        if (factory == null) {
            err.println("error: --mode " + mode + " is not available in this build: no source module registered"
                    + " a SourceFactory for it");
            return Main.FAILURE;
        }
        LOG.info("Starting outbox-relay {} in {} mode; effective configuration:{}{}", Cli.version(), mode,
                System.lineSeparator(), config);
        // Before any source exists: publishers take the global OpenTelemetry when they are made.
        Optional<Tracing> tracing = Tracing.install(System.getenv());
        try {
            return run(config, factory, err);
        } finally {
            tracing.ifPresent(Tracing::close);
        }
    }

    private int run(RelayConfig config, SourceFactory factory, PrintStream err) throws Exception {
        ProducerSettings producer = KafkaOptions.producerSettings(config);
        if (producer.exactlyOnce().isPresent()) {
            // Before PostgreSQL is contacted: a cluster that cannot hold transactions is refused with one line.
            ExactlyOnceCheck.Result result = ExactlyOnceCheck.check(producer, EXACTLY_ONCE_CHECK_TIMEOUT);
            if (result instanceof ExactlyOnceCheck.Refused refused) {
                err.println("error: " + refused.problem());
                return Main.FAILURE;
            }
            if (result instanceof ExactlyOnceCheck.Unreachable unreachable) {
                LOG.warn("Could not check Kafka for exactly-once delivery ({}); starting, and waiting for it",
                        unreachable.why());
            }
        }
        warmUp(config);
        RelayDaemon daemon = RelayDaemon.create(settings(config, factory), listener -> factory.create(config, listener));
        // SIGTERM/SIGINT are handled as signals, not only through a shutdown hook: a JVM ending through its
        // hooks exits 143, while a drained, orderly stop must exit 0 for systemd and Kubernetes.
        StopSignals.onStop(daemon::requestStop);
        Thread hook = new Thread(daemon::close, "outbox-relay-shutdown"); // backstop if the signal is bypassed
        Runtime.getRuntime().addShutdownHook(hook);
        daemon.start();
        daemon.awaitStopRequest();
        boolean clean = daemon.stop();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException alreadyExiting) {
            // the JVM is shutting down; the hook finds the daemon stopped
        }
        if (daemon.failure().isPresent()) {
            err.println("error: " + Problems.oneLine(daemon.failure().get()));
            return Main.FAILURE;
        }
        return clean ? Main.OK : Main.FAILURE;
    }

    /**
     * Before the source and the standby's lock attempts: a standby that takes over hours later finds the pipeline's
     * code compiled, as does an instance that starts into a backlog.
     */
    private static void warmUp(RelayConfig config) throws InterruptedException {
        int events = config.get(CliOptions.WARMUP_EVENTS);
        if (events == 0) {
            return;
        }
        Warmup.Report report = Warmup.pipeline(KafkaOptions.router(config)).run(events, WARMUP_LIMIT);
        LOG.info("Warmed up the delivery pipeline on {} synthetic events in {} ms ({} routed; nothing sent or"
                + " written)", report.events(), report.took().toMillis(), report.published());
    }

    static DaemonSettings settings(RelayConfig config, SourceFactory factory) {
        return new DaemonSettings(factory.mode(), config.get(InstanceOptions.RELAY_NAME),
                DatabaseOptions.table(config), factory.coordination(), factory.inspector(config),
                factory.gauges(), config.get(CliOptions.HTTP_HOST),
                config.get(CliOptions.HTTP_PORT), config.get(CliOptions.SHUTDOWN_TIMEOUT),
                config.get(CliOptions.PROBE_INTERVAL), config.get(InstanceOptions.STANDBY_INTERVAL),
                ConnectionFactory.fromConfig(config), KafkaOptions.producerSettings(config).producerProperties());
    }
}
