package dev.outboxrelay.demo;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * Entry point of {@code outbox-relay-demo.jar}: the relay working end to end on one machine, with no external
 * service. Exit codes: 0 nothing lost and per-key order held, 1 otherwise (or a failure), 2 bad usage.
 */
@Command(name = "outbox-relay-demo", mixinStandardHelpOptions = true, version = "outbox-relay-demo",
        sortOptions = false, usageHelpWidth = 100,
        description = {
            "Starts a throwaway PostgreSQL and an in-process Kafka broker, migrates the outbox table, runs the"
                    + " relay, writes events for many aggregates in transactions at a steady rate, consumes the"
                    + " topic, prints progress every second and a final verdict: lost, duplicates, per-key order.",
            "Needs only Java 17 and the PostgreSQL server binaries (apt-get install postgresql)."},
        footer = {"", "Exit codes: 0 nothing lost and per-key order held, 1 otherwise, 2 usage error.", "",
            "Examples:",
            "  java -jar demo/target/outbox-relay-demo.jar",
            "  java -jar demo/target/outbox-relay-demo.jar --mode cdc --events 50000 --rate 5000 --keys 500"})
public final class DemoMain implements Callable<Integer> {

    /** Nothing lost, per-key order held. */
    public static final int OK = 0;
    /** Something was lost or out of order, or the demo failed. */
    public static final int FAILURE = 1;
    /** Bad flags. */
    public static final int USAGE = 2;

    @Spec
    private CommandSpec spec;

    @Option(names = "--mode", paramLabel = "poll|cdc", defaultValue = "poll",
            description = "Which source the relay runs: poll (batched reads of unsent rows, woken by NOTIFY) or"
                    + " cdc (Debezium on the WAL). Default: ${DEFAULT-VALUE}.")
    private Demo.Mode mode;

    @Option(names = "--events", paramLabel = "N", defaultValue = "20000",
            description = "Events to write. Default: ${DEFAULT-VALUE}.")
    private int events;

    @Option(names = "--rate", paramLabel = "R", defaultValue = "2000",
            description = "Events written per second. Default: ${DEFAULT-VALUE}.")
    private int rate;

    @Option(names = "--keys", paramLabel = "K", defaultValue = "200",
            description = "Aggregates (Kafka keys) the events are spread over. Default: ${DEFAULT-VALUE}.")
    private int keys;

    private PrintStream out = System.out;

    public static void main(String[] args) {
        // The broker and the PostgreSQL watchdog keep non-daemon threads: end the JVM explicitly.
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the demo in-process and returns its exit code; progress goes to {@code out}, errors to {@code err}. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        DemoMain command = new DemoMain();
        command.out = out;
        CommandLine cli = new CommandLine(command).setCaseInsensitiveEnumValuesAllowed(true);
        cli.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        cli.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        cli.setParameterExceptionHandler((e, a) -> {
            err.println("error: " + e.getMessage() + " (see 'java -jar outbox-relay-demo.jar --help')");
            return USAGE;
        });
        cli.setExecutionExceptionHandler((e, c, p) -> {
            err.println("error: demo failed: " + e);
            return FAILURE;
        });
        return cli.execute(args);
    }

    @Override
    public Integer call() {
        check(events, 1, 10_000_000, "--events");
        check(rate, 1, 100_000, "--rate");
        check(keys, 1, 1_000_000, "--keys");
        return new Demo(new Demo.Settings(mode, events, rate, keys), out).run() ? OK : FAILURE;
    }

    private void check(int value, int min, int max, String flag) {
        if (value < min || value > max) {
            throw new ParameterException(spec.commandLine(),
                    flag + ": must be between " + min + " and " + max + ", was " + value);
        }
    }
}
