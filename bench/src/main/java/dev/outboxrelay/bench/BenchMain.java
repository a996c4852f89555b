package dev.outboxrelay.bench;

import dev.outboxrelay.testkit.TestJvm;
import dev.outboxrelay.testkit.TestPostgres;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code java -jar bench/target/outbox-bench.jar [--quick]}: the whole benchmark in one command. Prints the
 * markdown result to stdout and writes it to {@code bench/results/<date>-<quick|full>.md}.
 */
@Command(name = "outbox-bench", mixinStandardHelpOptions = true, sortOptions = false,
        version = "outbox-bench 0.1.0-SNAPSHOT",
        description = {
            "Measures the relay (poll and cdc, each marking or deleting) against a naive",
            "poller, a batched poller, stock Debezium, the floors (fetch + producer,",
            "engine + producer) and the ceilings (raw Kafka producer K, writer insert",
            "rate I) on one machine: drain, latency at fixed loads, CPU per event.",
            "It runs its own PostgreSQL and Kafka broker. A consumer checks every",
            "scenario: a lost event fails the run.",
            "Result: stdout and bench/results/<date>-<mode>.md."},
        footer = {"", "Examples:",
            "  java -jar bench/target/outbox-bench.jar --quick      # about 10 minutes",
            "  java -jar bench/target/outbox-bench.jar              # full run, about 30 min",
            "  java -jar bench/target/outbox-bench.jar --quick --only poll-mark,cdc",
            "  java -jar bench/target/outbox-bench.jar --db-costs   # the database's per-event floor, ~4 min",
            "", "Exit status: 0 nothing lost, 1 a scenario lost events, 2 the run could not complete."})
public final class BenchMain implements Callable<Integer> {

    @Option(names = "--quick", description = "Smaller counts and shorter phases (about 10 minutes).")
    private boolean quick;

    @Option(names = "--db-costs", description = "Instead of the benchmark: what PostgreSQL alone charges per event"
            + " for the poll source's fetch and acknowledgement, and for schema variants (no Kafka)."
            + " Result: bench/results/<date>-db-costs.md.")
    private boolean dbCosts;

    @Option(names = "--only", split = ",", paramLabel = "SCENARIO",
            description = "Run only these contenders: naive, batched, debezium, floor-poll, floor-cdc, poll-mark,"
                    + " poll-delete, cdc, cdc-delete, poll-eos, cdc-eos (--delivery exactly-once), connect.")
    private List<String> only = new ArrayList<>();

    @Option(names = "--connect-plugin", paramLabel = "DIR",
            description = "The connector's plugin directory for the connect contender (default:"
                    + " connect/target/plugin next to this jar's module).")
    private Path connectPlugin;

    @Option(names = "--relay-jar", paramLabel = "JAR",
            description = "The shaded relay jar (default: relay/target/outbox-relay.jar next to this jar's module).")
    private Path relayJar;

    /** The relay's JVM options as {@code deploy/} runs it: the default of {@code --relay-jvm-opts}. */
    static final String DEPLOYMENT_JVM_OPTIONS = "-Xmx256m -Xms64m -Xmn48m -XX:+UseSerialGC";

    @Option(names = "--relay-jvm-opts", paramLabel = "OPTS", defaultValue = DEPLOYMENT_JVM_OPTIONS,
            description = "JVM options of the relay subprocess and of the floors (default: ${DEFAULT-VALUE});"
                    + " the baselines run with the JVM's defaults.")
    private String relayJvmOpts;

    @Option(names = "--relay-args", paramLabel = "ARGS",
            description = "Extra flags for the relay subprocess, space-separated, e.g. \"--kafka.linger.ms=0\": A/B runs"
                    + " of one setting.")
    private String relayArgs = "";

    @Option(names = "--steady-rate", paramLabel = "ROWS_PER_S",
            description = "Offer this many rows/s in the steady state instead of 50 %% of the measured I: A/B runs"
                    + " of two jars then see the same load (near a mode's ceiling, latency follows small load"
                    + " differences).")
    private double steadyRate;

    @Option(names = "--results-dir", paramLabel = "DIR",
            description = "Where the result file goes (default: bench/results of this checkout).")
    private Path resultsDir;

    private String[] args = new String[0];

    public static void main(String[] args) {
        BenchMain main = new BenchMain();
        main.args = args.clone();
        int code = new CommandLine(main)
                .setExecutionExceptionHandler((e, cmd, parsed) -> {
                    System.err.println("error: the benchmark could not complete: " + e);
                    e.printStackTrace();
                    return 2;
                })
                .execute(args);
        System.exit(code); // the broker and Debezium leave non-daemon threads behind
    }

    @Override
    public Integer call() throws Exception {
        if (dbCosts) {
            return runDbCosts();
        }
        Set<String> selected = new LinkedHashSet<>(only);
        for (String s : selected) {
            if (!Bench.SLUGS.contains(s)) {
                System.err.println("error: unknown scenario '" + s + "'; choose from " + Bench.SLUGS);
                return 2;
            }
        }
        Path jar = relayJar != null ? relayJar : findRelayJar();
        if (jar == null || !Files.isRegularFile(jar)) {
            System.err.println("error: relay jar not found" + (jar == null ? "" : " at " + jar)
                    + "; build it with ./mvnw -B -o -pl bench -am package -DskipTests, or pass --relay-jar");
            return 2;
        }
        Path plugin = connectPlugin != null ? connectPlugin : findConnectPlugin();
        if ((selected.isEmpty() || selected.contains("connect"))
                && (plugin == null || !Files.isDirectory(plugin.resolve("outbox-relay-connect")))) {
            System.err.println("error: the connector's plugin directory not found" + (plugin == null ? ""
                    : " at " + plugin) + "; build it with ./mvnw -B -o -pl bench,connect -am package -DskipTests,"
                    + " pass --connect-plugin, or leave connect out with --only");
            return 2;
        }
        String command = commandLine();
        List<String> jvm = TestJvm.words(relayJvmOpts);
        if (steadyRate < 0) {
            System.err.println("error: --steady-rate must be a positive number of rows/s, was " + steadyRate);
            return 2;
        }
        BenchConfig config = quick ? BenchConfig.quick() : BenchConfig.full();
        if (steadyRate > 0) {
            config = config.withSteadyRate(steadyRate);
        }
        Bench.Options options = new Bench.Options(config,
                jar.toAbsolutePath().normalize(), jvm,
                TestJvm.words(relayArgs), selected, command,
                plugin == null ? null : plugin.toAbsolutePath().normalize());
        Bench.Result result = Bench.run(options);
        String markdown = Report.markdown(result);
        System.out.println(markdown);
        write(markdown, options.config().label());
        if (!result.nothingLost()) {
            System.err.println("FAILED: a scenario lost events (see the lost column)");
            return 1;
        }
        return 0;
    }

    private int runDbCosts() throws Exception {
        if (quick || !only.isEmpty() || relayJar != null) {
            System.err.println("error: --db-costs runs alone; drop --quick, --only and --relay-jar");
            return 2;
        }
        Instant started = Instant.now();
        long t0 = System.nanoTime();
        String markdown;
        try (TestPostgres postgres = Bench.startPostgres()) {
            List<DbCosts.Cost> costs = DbCosts.measure(postgres);
            markdown = DbCosts.markdown(costs, commandLine(), started,
                    (System.nanoTime() - t0) / 1_000_000_000L, Bench.postgresNote(postgres));
        }
        System.out.println(markdown);
        write(markdown, "db-costs");
        return 0;
    }

    /** How this run was started, for the result; with $PG_BIN, whose server the test kit then starts. */
    private String commandLine() {
        String pgBin = System.getenv("PG_BIN");
        return (pgBin == null || pgBin.isBlank() ? "" : "PG_BIN=" + pgBin.trim() + " ")
                + "java -jar bench/target/outbox-bench.jar" + (args.length == 0 ? "" : " " + String.join(" ", args));
    }

    private void write(String markdown, String label) throws java.io.IOException {
        Path dir = resultsDir != null ? resultsDir : findResultsDir();
        Files.createDirectories(dir);
        Path file = dir.resolve(LocalDate.now() + "-" + label + ".md");
        Files.writeString(file, markdown, StandardCharsets.UTF_8);
        System.err.println("Result written to " + file);
    }

    private static Path ownDir() {
        try {
            Path self = Path.of(BenchMain.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            return Files.isRegularFile(self) ? self.getParent() : self; // bench/target (jar) or target/classes
        } catch (URISyntaxException | RuntimeException e) {
            return null;
        }
    }

    private static Path findRelayJar() {
        return findBuilt(Path.of("relay", "target", "outbox-relay.jar"), Files::isRegularFile);
    }

    private static Path findConnectPlugin() {
        return findBuilt(Path.of("connect", "target", "plugin"), Files::isDirectory);
    }

    /** A build output at {@code path} (relative to the repository root): next to this jar's module, or from here. */
    private static Path findBuilt(Path path, java.util.function.Predicate<Path> exists) {
        List<Path> candidates = new ArrayList<>();
        Path own = ownDir();
        if (own != null) {
            candidates.add(own.resolve("../..").resolve(path));
        }
        candidates.add(path);
        candidates.add(Path.of("..").resolve(path));
        return candidates.stream().filter(exists).findFirst().map(Path::normalize).orElse(null);
    }

    private static Path findResultsDir() {
        Path own = ownDir();
        if (own != null && Files.isDirectory(own.resolve("../results"))) {
            return own.resolve("../results").normalize();
        }
        Path local = Path.of("bench", "results");
        return Files.isDirectory(local) ? local : Path.of(".");
    }
}
