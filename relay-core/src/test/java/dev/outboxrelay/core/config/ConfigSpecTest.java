package dev.outboxrelay.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxrelay.core.acknowledge.Acknowledger.OnPublish;
import dev.outboxrelay.schema.OutboxTable;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ConfigSpecTest {

    static final Option<Integer> BATCH_SIZE = Option.integer("batch-size").defaultValue("500")
            .validate(Validator.between(1, 100_000)).doc("Rows per batch.").example("1000").build();
    static final Option<Duration> INTERVAL = Option.duration("poll-interval").defaultValue("500ms")
            .validate(Validator.atLeast(Duration.ofMillis(10), "10ms")).doc("Pause.").build();
    static final OptionSet TEST = OptionSet.of("Test", BATCH_SIZE, INTERVAL);

    static final ConfigSpec SPEC = ConfigSpec.of(OptionSet.of("General", ConfigSpec.CONFIG),
            DatabaseOptions.CONNECTION, KafkaOptions.SET, TEST);

    @TempDir
    Path dir;

    private static ConfigSources.Builder required() {
        return ConfigSources.builder().flag("db-url", "jdbc:postgresql://localhost/app").flag("db-user", "relay")
                .flag("kafka-bootstrap", "localhost:9092");
    }

    private Path file(String name, String content) throws IOException {
        return Files.writeString(dir.resolve(name), content);
    }

    @Test
    void defaultsApplyWhenNothingIsSet() {
        RelayConfig c = SPEC.resolve(required().build());
        assertThat(c.get(BATCH_SIZE)).isEqualTo(500);
        assertThat(c.get(INTERVAL)).isEqualTo(Duration.ofMillis(500));
        assertThat(c.get(DatabaseOptions.TABLE)).isEqualTo(OutboxTable.DEFAULT);
        assertThat(c.get(KafkaOptions.ON_PUBLISH)).isEqualTo(OnPublish.MARK);
        assertThat(c.get(KafkaOptions.TOPIC_TEMPLATE)).isEqualTo("outbox.event.${aggregateType}");
        assertThat(c.source(BATCH_SIZE)).contains(ValueSource.DEFAULT);
        assertThat(c.find(DatabaseOptions.DB_PASSWORD)).isEmpty();
    }

    @Test
    void programmaticBuildersReadTheDeclaredDefaultTyped() {
        assertThat(BATCH_SIZE.parsedDefault()).isEqualTo(500);
        assertThat(INTERVAL.parsedDefault()).isEqualTo(Duration.ofMillis(500));
        assertThat(KafkaOptions.ON_PUBLISH.parsedDefault()).isEqualTo(OnPublish.MARK);
        assertThatThrownBy(DatabaseOptions.DB_URL::parsedDefault).isInstanceOf(IllegalStateException.class)
                .hasMessage("option db-url has no default");
    }

    @Test
    void flagBeatsEnvironmentBeatsConfigFileBeatsDefault() throws IOException {
        Path f = file("relay.properties", "batch-size=3\npoll-interval=7d\ntable=f.outbox\n");
        RelayConfig c = SPEC.resolve(required().configFile(f)
                .environment(Map.of("RELAY_BATCH_SIZE", "2", "RELAY_POLL_INTERVAL", "5s"))
                .flag("batch-size", "1").build());
        assertThat(c.get(BATCH_SIZE)).isEqualTo(1);
        assertThat(c.source(BATCH_SIZE)).contains(ValueSource.COMMAND_LINE);
        assertThat(c.get(INTERVAL)).isEqualTo(Duration.ofSeconds(5));
        assertThat(c.source(INTERVAL)).contains(ValueSource.ENVIRONMENT);
        assertThat(c.get(DatabaseOptions.TABLE)).isEqualTo(OutboxTable.parse("f.outbox"));
        assertThat(c.source(DatabaseOptions.TABLE)).contains(ValueSource.CONFIG_FILE);
    }

    @Test
    void configFileMayComeFromTheEnvironment() throws IOException {
        Path f = file("relay.properties", "batch-size=3\n");
        RelayConfig c = SPEC.resolve(required().environment(Map.of("RELAY_CONFIG", f.toString())).build());
        assertThat(c.get(BATCH_SIZE)).isEqualTo(3);
    }

    @Test
    void passthroughPrecedenceIsFlagThenConfigFileThenPassthroughFile() throws IOException {
        Path producer = file("producer.properties", "linger.ms=1\nbatch.size=1\ncompression.type=gzip\n");
        Path f = file("relay.properties", "kafka.linger.ms=2\nkafka.batch.size=2\nkafka-config-file=" + producer + "\n");
        RelayConfig c = SPEC.resolve(required().configFile(f).passthroughFlag("kafka", "linger.ms", "3").build());
        assertThat(c.passthrough("kafka")).containsExactlyInAnyOrderEntriesOf(
                Map.of("linger.ms", "3", "batch.size", "2", "compression.type", "gzip"));
        assertThat(c.passthroughSource("kafka.linger.ms")).contains(ValueSource.COMMAND_LINE);
        assertThat(c.passthroughSource("kafka.batch.size")).contains(ValueSource.CONFIG_FILE);
        assertThat(c.passthroughSource("kafka.compression.type")).contains(ValueSource.PASSTHROUGH_FILE);
    }

    @Test
    void everyProblemIsReportedAtOnceNamingTheOptionAndSource() throws IOException {
        Path f = file("relay.properties", "poll-interval=soon\nbatchsize=3\n");
        assertThatThrownBy(() -> SPEC.resolve(ConfigSources.builder().configFile(f)
                .environment(Map.of("RELAY_MAX_ATTEMPTS", "lots"))
                .flag("batch-size", "0").flag("table", "a.b.c").flag("on-publish", "archive")
                .flag("topic-template", "x.${nope}")
                .passthroughFlag("kafka", "acks", "1").passthroughFlag("kafka", "enable.idempotence", "false")
                .build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "config file " + f + ": unknown option 'batchsize'",
                        "--db-url: required (or set RELAY_DB_URL)",
                        "--db-user: required (or set RELAY_DB_USER)",
                        "--table: 'a.b.c' is not a valid table name: expected [schema.]table, each starting with"
                                + " a letter or underscore followed by letters, digits or underscores (max 63)",
                        "--kafka-bootstrap: required (or set RELAY_KAFKA_BOOTSTRAP)",
                        "--topic-template: " + topicTemplateProblem("x.${nope}"),
                        "--on-publish: expected one of mark, delete, was 'archive'",
                        "RELAY_MAX_ATTEMPTS: expected an integer, was 'lots'",
                        "--batch-size: must be between 1 and 100000, was 0",
                        "poll-interval (config file " + f + "): expected a duration such as 500ms, 5s, 10m, 2h"
                                + " or 7d, was 'soon'",
                        "--kafka.acks=1 weakens delivery: the relay requires acks=all",
                        "--kafka.enable.idempotence=false weakens delivery: the relay requires the idempotent producer"));
    }

    private static String topicTemplateProblem(String template) {
        try {
            dev.outboxrelay.core.route.EventRouter.topicTemplate(template);
            throw new AssertionError("template should be invalid");
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    @Test
    void unknownFlagsAndPassthroughFamiliesAreRejected() {
        assertThatThrownBy(() -> SPEC.resolve(required().flag("bogus", "1")
                .passthroughFlag("debezium", "slot.name", "x").build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "--bogus: unknown option", "--debezium.slot.name: unknown option"));
    }

    @Test
    void configFileKeysOfOtherCommandsCanBeTolerated() throws IOException {
        Path f = file("relay.properties", "mode=poll\ndebezium.slot.name=x\n");
        RelayConfig c = SPEC.tolerating(java.util.List.of("mode", "debezium")).resolve(required().configFile(f).build());
        assertThat(c.get(BATCH_SIZE)).isEqualTo(500);
    }

    @Test
    void passwordIsAcceptedOnlyFromTheEnvironment() throws IOException {
        Path f = file("relay.properties", "db-password=s3cr3t-file\n");
        assertThatThrownBy(() -> SPEC.resolve(required().configFile(f).flag("db-password", "s3cr3t-flag").build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> {
                    assertThat(e.problems()).containsExactly(
                            "--db-password: not accepted on the command line, where other users can see it;"
                                    + " set RELAY_DB_PASSWORD or use --db-password-file FILE",
                            "config file " + f + ": 'db-password' is not accepted in a file;"
                                    + " set RELAY_DB_PASSWORD or use --db-password-file FILE");
                    assertThat(e.getMessage()).doesNotContain("s3cr3t");
                });
        RelayConfig c = SPEC.resolve(required().environment(Map.of("RELAY_DB_PASSWORD", "s3cr3t")).build());
        assertThat(DatabaseOptions.password(c)).contains(Password.of("s3cr3t"));
    }

    @Test
    void passwordFileIsReadWithoutTrailingNewlineAndExcludesTheEnvironmentVariable() throws IOException {
        Path pw = file("pw", "s3cr3t\n");
        RelayConfig c = SPEC.resolve(required().flag("db-password-file", pw.toString()).build());
        assertThat(DatabaseOptions.password(c).map(Password::reveal)).contains("s3cr3t");
        assertThatThrownBy(() -> SPEC.resolve(required().flag("db-password-file", pw.toString())
                .environment(Map.of("RELAY_DB_PASSWORD", "other")).build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "--db-password-file: cannot be combined with RELAY_DB_PASSWORD; use one of them"));
        assertThatThrownBy(() -> SPEC.resolve(required().flag("db-password-file", dir.resolve("missing").toString()).build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "--db-password-file: cannot read file, was '" + dir.resolve("missing") + "'"));
    }

    @Test
    void dumpListsEveryOptionWithItsSourceAndMasksSecrets() throws IOException {
        Path f = file("relay.properties", "kafka.ssl.truststore.password=tspw\n");
        RelayConfig c = SPEC.resolve(required().configFile(f)
                .environment(Map.of("RELAY_DB_PASSWORD", "dbpw", "RELAY_KAFKA_SASL_JAAS_CONFIG", "jaaspw"))
                .passthroughFlag("kafka", "linger.ms", "10").build());
        String dump = c.toString();
        assertThat(dump).doesNotContain("dbpw", "tspw", "jaaspw");
        assertThat(c.dump()).contains(
                "config = " + f + " (command line)",
                "db-url = jdbc:postgresql://localhost/app (command line)",
                "db-password = [hidden] (environment)",
                "db-password-file = (not set)",
                "batch-size = 500 (default)",
                "kafka.linger.ms = 10 (command line)",
                "kafka.sasl.jaas.config = [hidden] (environment)",
                "kafka.ssl.truststore.password = [hidden] (config file)");
        assertThat(c.dump()).hasSize(SPEC.options().size() + 3);
        assertThat(Password.of("x")).hasToString("[hidden]");
    }

    @Test
    void secretValuesAreNeverEchoedInProblems() {
        assertThatThrownBy(() -> SPEC.resolve(required().environment(Map.of("RELAY_DB_PASSWORD", "")).build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "RELAY_DB_PASSWORD: invalid value"));
    }

    @Test
    void declarationsDeriveEnvironmentVariablesAndRejectDuplicates() {
        assertThat(DatabaseOptions.DB_URL.envVar()).isEqualTo("RELAY_DB_URL");
        assertThat(KafkaOptions.KAFKA_CONFIG_FILE.envVar()).isEqualTo("RELAY_KAFKA_CONFIG_FILE");
        Option<Integer> other = Option.integer("batch-size").doc("Clash.").build();
        assertThatThrownBy(() -> ConfigSpec.of(TEST, OptionSet.of("Other", other)))
                .hasMessageContaining("option batch-size is declared twice");
        // Sharing one constant is fine.
        assertThat(ConfigSpec.of(TEST, OptionSet.of("Again", BATCH_SIZE)).options()).hasSize(2);
        assertThatThrownBy(() -> Option.integer("x").defaultValue("0").validate(Validator.between(1, 2)).doc("d").build())
                .hasMessage("default of x must be between 1 and 2");
    }

    @Test
    void kafkaPropertiesFromTheEnvironmentMapDotsToUnderscores() {
        RelayConfig c = SPEC.resolve(ConfigSources.builder().flag("db-url", "jdbc:postgresql://localhost/app")
                .flag("db-user", "relay").passthroughFlag("kafka", "linger.ms", "3")
                .environment(Map.of("RELAY_KAFKA_LINGER_MS", "7", "RELAY_KAFKA_COMPRESSION_TYPE", "zstd",
                        "RELAY_KAFKA_BOOTSTRAP", "k:9092")).build());
        assertThat(c.passthrough("kafka")).containsExactlyInAnyOrderEntriesOf(
                Map.of("linger.ms", "3", "compression.type", "zstd"));
        assertThat(c.passthroughSource("kafka.compression.type")).contains(ValueSource.ENVIRONMENT);
        assertThat(c.get(KafkaOptions.KAFKA_BOOTSTRAP)).isEqualTo("k:9092");
    }

    @Test
    void theInFlightByteBudgetIsASizeOrAutoAndMustFitTheProducersBuffer() {
        RelayConfig auto = SPEC.resolve(required().build());
        assertThat(auto.get(KafkaOptions.MAX_IN_FLIGHT_BYTES).isAuto()).isTrue();
        assertThat(KafkaOptions.inFlightBytes(auto)).isBetween(MemoryBudget.MIN_BYTES, 32L << 20);
        RelayConfig sized = SPEC.resolve(required().flag("max-in-flight-bytes", "16MiB").build());
        assertThat(KafkaOptions.inFlightBytes(sized)).isEqualTo(16L << 20);
        assertThatThrownBy(() -> SPEC.resolve(required().flag("max-in-flight-bytes", "64MiB").build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "--max-in-flight-bytes: 64 MiB is more than kafka.buffer.memory (32 MiB), so records would"
                                + " wait in the producer; lower it or raise kafka.buffer.memory"));
        RelayConfig raised = SPEC.resolve(required().flag("max-in-flight-bytes", "64MiB")
                .passthroughFlag("kafka", "buffer.memory", Long.toString(128L << 20)).build());
        assertThat(KafkaOptions.inFlightBytes(raised)).isEqualTo(64L << 20);
        assertThatThrownBy(() -> SPEC.resolve(required().flag("max-in-flight-bytes", "lots").build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "--max-in-flight-bytes: expected auto or a size such as 512KiB, 64MiB or 1GiB, was 'lots'"));
    }

    @Test
    void memoryBudgetsParseBinaryUnitsAndDeriveAutoFromTheHeap() {
        assertThat(MemoryBudget.parse("1048576").bytes(0, 0)).isEqualTo(1L << 20);
        assertThat(MemoryBudget.parse("2048kib").isAuto()).isFalse();
        assertThat(MemoryBudget.parse("2 GB").bytes(0, 0)).isEqualTo(2L << 30);
        assertThat(MemoryBudget.parse("AUTO").bytes(256L << 20, 32L << 20)).as("heap / 8").isEqualTo(32L << 20);
        assertThat(MemoryBudget.parse("auto").bytes(4L << 30, 32L << 20)).as("at most the producer buffer")
                .isEqualTo(32L << 20);
        assertThat(MemoryBudget.parse("auto").bytes(64L << 20, 32L << 20)).isEqualTo(8L << 20);
        assertThat(MemoryBudget.parse("auto").bytes(4L << 20, 32L << 20)).as("floor").isEqualTo(MemoryBudget.MIN_BYTES);
        assertThatThrownBy(() -> MemoryBudget.parse("512KiB")).hasMessage("must be at least 1MiB, was '512KiB'");
        assertThatThrownBy(() -> MemoryBudget.parse("99999999999GiB")).hasMessage("size too large: '99999999999GiB'");
        assertThat(MemoryBudget.format(48L << 20)).isEqualTo("48 MiB");
        assertThat(MemoryBudget.format(3L << 29)).isEqualTo("1536 MiB");
        assertThat(MemoryBudget.format(2L << 30)).isEqualTo("2 GiB");
        assertThat(MemoryBudget.format(1_500_000)).isEqualTo("1.4 MiB");
    }

    @Test
    void kafkaSettingsAreCheckedBeforeAnythingIsContacted() {
        assertThatThrownBy(() -> SPEC.resolve(required().passthroughFlag("kafka", "lingr.ms", "5")
                .passthroughFlag("kafka", "compression.type", "bogus")
                .environment(Map.of("RELAY_KAFKA_PARTITIONER_IGNORE_KEYS", "true")).build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).satisfiesExactly(
                        p -> assertThat(p).startsWith("--kafka.compression.type: invalid value 'bogus'"),
                        p -> assertThat(p).isEqualTo("--kafka.lingr.ms is not a Kafka producer setting;"
                                + " did you mean kafka.linger.ms?"),
                        p -> assertThat(p).isEqualTo("--kafka.partitioner.ignore.keys=true breaks per-key order:"
                                + " the relay partitions by key")));
    }

    @Test
    void kafkaSecretsAreRefusedOnTheCommandLineWithoutTheirValue() {
        assertThatThrownBy(() -> SPEC.resolve(required()
                .passthroughFlag("kafka", "sasl.jaas.config", "org.x required password=\"s3cr3t\";").build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "--kafka.sasl.jaas.config: not accepted on the command line, where other users can see it;"
                                + " set RELAY_KAFKA_SASL_JAAS_CONFIG or put it in --kafka-config-file"))
                .message().doesNotContain("s3cr3t");
    }

    @Test
    void passwordsInTheDatabaseUrlAreMaskedAndRefusedAsFlags() {
        String url = "jdbc:postgresql://db/app?sslmode=verify-full&password=pw1&sslpassword=pw2";
        assertThatThrownBy(() -> SPEC.resolve(required().flag("db-url", url).build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "--db-url: a password in the URL is not accepted on the command line, where other users can"
                                + " see it; set RELAY_DB_PASSWORD or use --db-password-file",
                        "--db-url: 'sslpassword' in the URL is not accepted on the command line, where other users"
                                + " can see it; give the URL in RELAY_DB_URL or the --config file"));
        RelayConfig c = SPEC.resolve(ConfigSources.builder().flag("db-user", "relay").flag("kafka-bootstrap", "k:1")
                .environment(Map.of("RELAY_DB_URL", url)).build());
        assertThat(c.get(DatabaseOptions.DB_URL)).isEqualTo(url);
        assertThat(c.toString()).doesNotContain("pw1", "pw2")
                .contains("db-url = jdbc:postgresql://db/app?sslmode=verify-full&password=[hidden]&sslpassword=[hidden]");
        assertThatThrownBy(() -> SPEC.resolve(required().flag("db-url", "jdbc:mysql://db/app?password=pw1").build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "--db-url: must be a PostgreSQL JDBC URL such as jdbc:postgresql://db.example.com:5432/app,"
                                + " was 'jdbc:mysql://db/app?password=[hidden]'"));
    }

    @Test
    void tableNamesLeaveRoomForTheNamesTheRelayDerives() {
        String fifty = "t".repeat(50);
        assertThat(SPEC.resolve(required().flag("table", "s." + fifty).build()).get(DatabaseOptions.TABLE).table())
                .isEqualTo(fifty);
        String long62 = "t".repeat(62);
        assertThatThrownBy(() -> SPEC.resolve(required().flag("table", long62).build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "--table: the table name is 62 characters; the relay derives names such as " + long62
                                + "_relay_notify from it, which PostgreSQL limits to 63: use at most 50, was '"
                                + long62 + "'"));
    }
}
