package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real daemon with a database password (environment) and a SASL password (Kafka config file), logging
 * JSON at DEBUG: neither secret appears in its logs, its command line, its metrics, --help or --dry-run.
 */
class SecretsIT {

    private static final String SASL_SECRET = "sasl-Pa55-never-shown";

    @TempDir
    Path dir;

    private PublishingRelay started;
    private TestDatabase database;

    @AfterEach
    void tearDown() throws Exception {
        if (started != null) {
            started.close();
        }
        if (database != null) {
            database.drop();
        }
    }

    @Test
    void noSecretInLogsCommandLineMetricsHelpOrDryRun() throws Exception {
        TestKafka kafka = TestKafka.shared();
        kafka.createTopic("secrets-it.Order", 1);
        // SASL settings are passed through unchanged; with the default PLAINTEXT protocol the client ignores them.
        Path producer = Files.writeString(dir.resolve("producer.properties"), "sasl.mechanism=PLAIN\n"
                + "sasl.jaas.config=org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\""
                + " password=\"" + SASL_SECRET + "\";\n", StandardCharsets.UTF_8);
        started = PublishingRelay.of("secrets", "poll").kafka(kafka).args("--topic-template",
                "secrets-it.${aggregateType}", "--poll-interval", "100ms", "--kafka-config-file", producer.toString(),
                "--log-format", "json", "--verbose").start();
        RelayProcess relay = started.relay;
        TestDatabase database = started.database;
        String dbSecret = database.relayPassword();

        String cmdline = Files.readString(Path.of("/proc", String.valueOf(relay.process.pid()), "cmdline"))
                .replace('\0', ' ');
        assertThat(cmdline).contains("--kafka-config-file").doesNotContain(dbSecret, SASL_SECRET);

        List<OutboxWriter.Row> rows = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            rows.add(OutboxWriter.Row.of("Order", "o-" + i, i));
        }
        List<String> ids = new OutboxWriter(database, "public.outbox").insert(rows);
        TopicReader.of(kafka).readUntilIds("secrets-it.Order", new HashSet<>(ids), Duration.ofSeconds(60));
        assertThat(relay.get("/metrics").body()).contains("outbox_relay_events_published_total")
                .doesNotContain(dbSecret, SASL_SECRET);
        assertThat(relay.terminate(Duration.ofSeconds(45))).isZero();

        String log = relay.logText();
        assertThat(log).contains("Starting outbox-relay", "sasl.jaas.config = [hidden]", "event(s): waited ", "Stopped")
                .doesNotContain(dbSecret, SASL_SECRET, "\"n\": 3");
        for (String line : log.lines().toList()) {
            assertThat(line).as("every log line is one JSON object").startsWith("{").endsWith("}");
            assertThat(line).as("with an ISO-8601 timestamp, the relay and its mode")
                    .containsPattern("\"@timestamp\":\"\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d")
                    .contains("\"relay\":\"outbox-relay\"", "\"mode\":\"poll\"");
        }

        Map<String, String> env = Map.of("RELAY_DB_PASSWORD", dbSecret);
        CliRun help = CliRun.of(env, "run", "--help");
        assertThat(help.out() + help.err()).doesNotContain(dbSecret, SASL_SECRET);
        CliRun dryRun = CliRun.of(env, "run", "--mode", "poll", "--db-url", database.jdbcUrl(), "--db-user",
                database.relayUser(), "--kafka-bootstrap", kafka.bootstrapServers(), "--kafka-config-file",
                producer.toString(), "--dry-run");
        assertThat(dryRun.exitCode()).as(dryRun.err()).isZero();
        assertThat(dryRun.out()).contains("db-password = [hidden] (environment)", "kafka.sasl.jaas.config = [hidden]")
                .doesNotContain(dbSecret, SASL_SECRET);
    }

    @Test
    void secretsInTheUrlAndKafkaSecretsComeFromTheEnvironmentAndAreShownMasked() throws Exception {
        database = MigratedDatabases.create("secrets_url");
        String dbSecret = database.relayPassword();
        String url = database.jdbcUrl() + (database.jdbcUrl().contains("?") ? "&" : "?") + "password=" + dbSecret
                + "&sslpassword=key-Pa55";
        String jaas = "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"u\" password=\""
                + SASL_SECRET + "\";";
        Map<String, String> env = Map.of("RELAY_DB_URL", url, "RELAY_KAFKA_SASL_JAAS_CONFIG", jaas,
                "RELAY_KAFKA_SASL_MECHANISM", "PLAIN");
        CliRun dryRun = CliRun.of(env, "run", "--mode", "cdc", "--db-user", database.relayUser(),
                "--kafka-bootstrap", TestKafka.shared().bootstrapServers(), "--dry-run");
        assertThat(dryRun.exitCode()).as(dryRun.err()).isZero();
        assertThat(dryRun.out()).contains("password=[hidden]&sslpassword=[hidden] (environment)",
                        "kafka.sasl.jaas.config = [hidden] (environment)", "kafka.sasl.mechanism = PLAIN (environment)")
                .doesNotContain(dbSecret, "key-Pa55", SASL_SECRET);

        // The same secrets as flags: refused, exit 2, one line each, values never echoed.
        CliRun flags = CliRun.of(Map.of(), "run", "--mode", "poll", "--db-url", url, "--db-user",
                database.relayUser(), "--kafka-bootstrap", TestKafka.shared().bootstrapServers(),
                "--kafka.sasl.jaas.config=" + jaas, "--kafka.ssl.key.password", "kp-Pa55", "--dry-run");
        assertThat(flags.exitCode()).isEqualTo(2);
        assertThat(flags.err()).contains(
                "--db-url: a password in the URL is not accepted on the command line",
                "--db-url: 'sslpassword' in the URL is not accepted on the command line",
                "--kafka.sasl.jaas.config: not accepted on the command line, where other users can see it;"
                        + " set RELAY_KAFKA_SASL_JAAS_CONFIG or put it in --kafka-config-file",
                "--kafka.ssl.key.password: not accepted on the command line")
                .doesNotContain(dbSecret, "key-Pa55", SASL_SECRET, "kp-Pa55");
        assertThat(flags.out()).doesNotContain(dbSecret, "key-Pa55", SASL_SECRET, "kp-Pa55");
    }
}
