package dev.outboxrelay.cli;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.SourceFactory;
import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.OptionType;
import dev.outboxrelay.core.config.RelayConfig;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code run}: validates the configuration, then starts the source chosen by {@code --mode} and runs until
 * SIGTERM. The source comes from the {@link SourceFactory} registered for the mode; without one, the command
 * fails instead of pretending to relay.
 */
final class RunCommand implements Cli.Command {

    private static final Logger LOG = LoggerFactory.getLogger(RunCommand.class);

    private final Map<String, SourceFactory> factories;
    private final ConfigSpec spec;

    RunCommand(Map<String, SourceFactory> factories) {
        this.factories = Map.copyOf(factories);
        List<OptionSet> sets = new ArrayList<>(List.of(CliOptions.GENERAL, CliOptions.RUN,
                DatabaseOptions.CONNECTION, KafkaOptions.SET));
        factories.values().forEach(f -> sets.add(f.options()));
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
    public int execute(RelayConfig config, PrintStream out, PrintStream err) throws InterruptedException {
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
        // Pending (operations issue): the health/metrics endpoint on --http-port is not served yet.
        OutboxSource source = factory.create(config, RelayListener.none());
        CountDownLatch stopRequested = new CountDownLatch(1);
        // SIGTERM/SIGINT are handled as signals, not only through a shutdown hook: a JVM ending through its
        // hooks exits 143, while a drained, orderly stop must exit 0 for systemd and Kubernetes.
        StopSignals.onStop(stopRequested::countDown);
        Thread hook = new Thread(source::close, "outbox-relay-shutdown"); // backstop if the signal handler is bypassed
        Runtime.getRuntime().addShutdownHook(hook);
        source.start();
        stopRequested.await();
        LOG.info("Shutdown requested; draining the in-flight batch");
        source.close();
        LOG.info("Stopped");
        return Main.OK;
    }
}
