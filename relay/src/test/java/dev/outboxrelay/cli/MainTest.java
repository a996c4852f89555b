package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.testkit.CapturedLogs;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The CLI without a database: help, version, usage errors, secrets, dry run, unreachable database. */
class MainTest {

    static final String SECRET = "hunter2-s3cr3t";
    static final String[] RUN_REQUIRED = {"run", "--mode", "poll", "--db-url", "jdbc:postgresql://localhost:5432/app",
        "--db-user", "relay", "--kafka-bootstrap", "localhost:9092"};

    @TempDir
    Path dir;

    private CapturedLogs logs;

    @BeforeEach
    void captureLogs() {
        logs = CapturedLogs.all();
    }

    @AfterEach
    void stopCapturing() {
        logs.close();
    }

    private String capturedLogs() {
        StringBuilder s = new StringBuilder();
        logs.messages().forEach(m -> s.append(m).append('\n'));
        return s.toString();
    }

    private static String[] with(String[] base, String... more) {
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    @Test
    void helpShowsEnvironmentVariablesDefaultsAndExamplesForEveryCommand() {
        CliRun root = CliRun.of("--help");
        assertThat(root.exitCode()).isZero();
        assertThat(root.out()).contains("migrate", "run", "Examples:");
        for (String command : new String[] {"migrate", "run"}) {
            CliRun help = CliRun.of(command, "--help");
            assertThat(help.exitCode()).isZero();
            assertThat(help.out()).contains("Example", "Env: RELAY_DB_URL", "RELAY_DB_PASSWORD", "--db-password-file",
                    "Default: public.outbox");
            assertThat(help.err()).isEmpty();
        }
        CliRun run = CliRun.of("run", "--help");
        assertThat(run.out()).contains("Default: outbox.event.${aggregateType}", "--kafka.<property>=<value>",
                "--mode=<poll|cdc>", "Default: 8080", "--dry-run");
    }

    @Test
    void helpNeverShowsSecretsEvenWhenTheyAreSet() {
        CliRun help = CliRun.of(Map.of("RELAY_DB_PASSWORD", SECRET), "run", "--help");
        assertThat(help.exitCode()).isZero();
        assertThat(help.out() + help.err()).doesNotContain(SECRET);
    }

    @Test
    void versionComesFromTheMavenProject() {
        CliRun version = CliRun.of("--version");
        assertThat(version.exitCode()).isZero();
        assertThat(version.out().strip()).matches("outbox-relay \\d+\\.\\d+\\.\\d+(-SNAPSHOT)?");
    }

    @Test
    void unknownOptionExitsTwoWithOneLineNeverEchoingItsValue() {
        CliRun r = CliRun.of("migrate", "--bogus=" + SECRET);
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("error: --bogus: unknown option (see 'outbox-relay migrate --help')\n");
        assertThat(r.out()).isEmpty();
    }

    @Test
    void badKafkaSettingsExitTwoBeforeAnythingIsContacted() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        // No --dry-run, and nothing listens at the URL: exit 2 (not 1) proves nothing was contacted.
        CliRun r = CliRun.of("run", "--mode", "cdc", "--db-url", "jdbc:postgresql://localhost:" + closedPort + "/app",
                "--db-user", "relay", "--kafka-bootstrap", "localhost:" + closedPort, "--kafka.lingr.ms=5",
                "--kafka.compression.type=bogus", "--kafka.partitioner.class=org.apache.kafka.clients.producer"
                        + ".RoundRobinPartitioner");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).contains("--kafka.lingr.ms is not a Kafka producer setting; did you mean kafka.linger.ms?",
                "--kafka.compression.type: invalid value 'bogus'",
                "--kafka.partitioner.class=org.apache.kafka.clients.producer.RoundRobinPartitioner may ignore keys");
        assertThat(r.err()).doesNotContain("cannot connect");
    }

    @Test
    void aBooleanFlagNeverTakesTheNextArgumentAsItsValue() {
        CliRun r = CliRun.of(with(RUN_REQUIRED, "--dry-run", "--btach-size=10"));
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).startsWith("error: --btach-size: unknown option");
        CliRun off = CliRun.of(with(RUN_REQUIRED, "--dry-run", "--batch-size", "10"));
        assertThat(off.exitCode()).as(off.err()).isZero();
    }

    @Test
    void anOptionOnlyTheOtherModeReadsIsRefusedNamingItInsteadOfIgnored() {
        String[] common = {"--db-url", "jdbc:postgresql://db:5432/app", "--db-user", "relay", "--kafka-bootstrap",
            "kafka:9092", "--dry-run"};
        CliRun cdc = CliRun.of(concat(new String[] {"run", "--mode", "cdc", "--batch-size", "10"}, common));
        assertThat(cdc).isEqualTo(new CliRun(2, "", "error: --batch-size: used only with --mode poll; --mode cdc does"
                + " not read it (remove it from the command line) (see 'outbox-relay run --help')\n"));
        CliRun fromEnv = CliRun.of(Map.of("RELAY_PIPELINE_DEPTH", "2"),
                concat(new String[] {"run", "--mode", "cdc"}, common));
        assertThat(fromEnv.exitCode()).isEqualTo(2);
        assertThat(fromEnv.err()).contains("--pipeline-depth: used only with --mode poll", "from the environment");
        CliRun poll = CliRun.of(concat(new String[] {"run", "--mode", "poll", "--debezium.max.batch.size=10"}, common));
        assertThat(poll.exitCode()).isEqualTo(2);
        assertThat(poll.err()).contains("--debezium.*: used only with --mode cdc");
        // What both modes read is accepted in both.
        for (String mode : new String[] {"poll", "cdc"}) {
            CliRun ok = CliRun.of(concat(new String[] {"run", "--mode", mode, "--on-poison", "skip", "--retention",
                "1d", "--purge-interval", "5m", "--standby-interval", "2s"}, common));
            assertThat(ok.exitCode()).as("%s: %s", mode, ok.err()).isZero();
        }
    }

    private static String[] concat(String[] a, String[] b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }

    @Test
    void missingCommandAndMissingValueAreUsageErrors() {
        assertThat(CliRun.of()).isEqualTo(new CliRun(2, "",
                "error: missing command: migrate, run, status, dead-letters, verify (see 'outbox-relay --help')\n"));
        assertThat(CliRun.of("migrate", "--db-url")).isEqualTo(new CliRun(2, "",
                "error: --db-url: needs a value (see 'outbox-relay migrate --help')\n"));
    }

    @Test
    void passwordFlagIsRejectedPointingToTheEnvironmentAndFile() {
        for (String[] args : new String[][] {
            {"migrate", "--db-url", "jdbc:postgresql://localhost/app", "--db-user", "relay", "--db-password", SECRET},
            {"migrate", "--db-url", "jdbc:postgresql://localhost/app", "--db-user", "relay", "--db-password=" + SECRET}}) {
            CliRun r = CliRun.of(args);
            assertThat(r.exitCode()).isEqualTo(2);
            assertThat(r.err()).isEqualTo("error: --db-password: not accepted on the command line, where other users"
                    + " can see it; set RELAY_DB_PASSWORD or use --db-password-file FILE"
                    + " (see 'outbox-relay migrate --help')\n");
        }
    }

    @Test
    void exactlyOnceRefusesADeadLetterTopicAndAStateTopicEventsMayBeRoutedTo() {
        CliRun r = CliRun.of(with(RUN_REQUIRED, "--delivery", "exactly-once", "--relay-name", "orders",
                "--dead-letter-topic", "dlq",
                "--topic-allow", "orders\\..*", "--state-topic", "orders.state"));
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("""
                error: --dead-letter-topic: not supported with --delivery exactly-once (a copy outside the \
                transaction could outlive an aborted one); dead letters stay in the table
                error: --state-topic: orders.state is also a topic events may be routed to (--topic-allow); use a \
                topic of its own (see 'outbox-relay run --help')
                """);
    }

    @Test
    void exactlyOnceIsAChoiceOfDeliveryWithTheStateTopicShownInTheDryRun() {
        CliRun bad = CliRun.of(with(RUN_REQUIRED, "--delivery", "twice"));
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).startsWith("error: --delivery: expected one of at-least-once, exactly-once, was"
                + " 'twice'");
        CliRun unnamed = CliRun.of(with(RUN_REQUIRED, "--delivery", "exactly-once"));
        assertThat(unnamed.exitCode()).isEqualTo(2);
        assertThat(unnamed.err()).isEqualTo("error: --relay-name: set a name of this relay's own with --delivery"
                + " exactly-once: it names the transactional id, and two relays of one name and table on a Kafka"
                + " cluster would fence each other (see 'outbox-relay run --help')\n");
        CliRun dry = CliRun.of(Map.of("RELAY_DB_PASSWORD", SECRET), with(RUN_REQUIRED, "--delivery", "exactly-once",
                "--relay-name", "orders", "--dry-run"));
        assertThat(dry.exitCode()).as(dry.err()).isZero();
        assertThat(dry.out()).contains("delivery = exactly-once (command line)",
                "state-topic = outbox-relay.state (default)");
    }

    @Test
    void everyConfigurationProblemIsReportedBeforeAnythingIsContacted() {
        CliRun r = CliRun.of("run", "--mode", "rabbit", "--http-port", "70000", "--kafka.acks=0");
        assertThat(r.exitCode()).isEqualTo(2);
        assertThat(r.err()).isEqualTo("""
                error: --mode: expected one of poll, cdc, was 'rabbit'
                error: --http-port: must be between 0 and 65535, was 70000
                error: --db-url: required (or set RELAY_DB_URL)
                error: --db-user: required (or set RELAY_DB_USER)
                error: --kafka-bootstrap: required (or set RELAY_KAFKA_BOOTSTRAP)
                error: --kafka.acks=0 weakens delivery: the relay requires acks=all (see 'outbox-relay run --help')
                """);
    }

    @Test
    void migratePrintNeedsNoDatabase() {
        CliRun r = CliRun.of("migrate", "--print", "--table", "orders.outbox", "--publication", "orders_pub");
        assertThat(r.exitCode()).isZero();
        assertThat(r.out()).startsWith("-- outbox-relay schema for outbox:orders.outbox, version 6")
                .contains("CREATE TABLE \"orders\".\"outbox\"",
                        "CREATE PUBLICATION \"orders_pub\" FOR TABLE \"orders\".\"outbox\"")
                .endsWith("COMMIT;\n");
        assertThat(r.err()).isEmpty();
    }

    @Test
    void unreachableDatabaseIsOneLineAndExitCodeOne() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        CliRun r = CliRun.of(Map.of("RELAY_DB_PASSWORD", SECRET), "migrate",
                "--db-url", "jdbc:postgresql://localhost:" + closedPort + "/app", "--db-user", "relay");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("error: cannot connect to PostgreSQL at localhost:" + closedPort
                + "/app: connection refused\n");
        assertThat(capturedLogs()).doesNotContain(SECRET);
    }

    @Test
    void verifyThatCouldNotCheckExitsThreeNotOne() throws IOException {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        CliRun r = CliRun.of(Map.of(), "verify", "--db-url", "jdbc:postgresql://localhost:" + closedPort + "/app",
                "--db-user", "relay", "--kafka-bootstrap", "localhost:" + closedPort);
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.err()).isEqualTo("error: could not check delivery: cannot connect to PostgreSQL at localhost:"
                + closedPort + "/app: connection refused\n");
    }

    @Test
    void dryRunPrintsTheEffectiveConfigurationWithSecretsMasked() throws IOException {
        Path producer = Files.writeString(dir.resolve("producer.properties"),
                "ssl.keystore.password=" + SECRET + "\nlinger.ms=20\n");
        Path config = Files.writeString(dir.resolve("relay.properties"),
                "on-publish=delete\nkafka.sasl.jaas.config=" + SECRET + "\n");
        CliRun r = CliRun.of(Map.of("RELAY_DB_PASSWORD", SECRET, "RELAY_MAX_ATTEMPTS", "3"),
                with(RUN_REQUIRED, "--dry-run", "--config", config.toString(),
                        "--kafka-config-file", producer.toString(), "--kafka.client.id=relay-1"));
        assertThat(r.exitCode()).isZero();
        assertThat(r.out() + r.err() + capturedLogs()).doesNotContain(SECRET);
        assertThat(r.out()).contains(
                "mode = poll (command line)\n",
                "db-password = [hidden] (environment)\n",
                "on-publish = delete (config file)\n",
                "max-attempts = 3 (environment)\n",
                "topic-template = outbox.event.${aggregateType} (default)\n",
                "kafka.linger.ms = 20 (passthrough file)\n",
                "kafka.ssl.keystore.password = [hidden] (passthrough file)\n",
                "kafka.sasl.jaas.config = [hidden] (config file)\n",
                "kafka.client.id = relay-1 (command line)\n");
    }

    @Test
    void runWithoutAWiredSourceFailsInsteadOfPretending() {
        CliRun r = CliRun.withFactories(Map.of(), RUN_REQUIRED);
        assertThat(r).isEqualTo(new CliRun(1, "", "error: --mode poll is not available in this build:"
                + " no source module registered a SourceFactory for it\n"));
    }
}
