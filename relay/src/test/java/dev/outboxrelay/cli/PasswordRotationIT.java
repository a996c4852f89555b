package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ReadRecord;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A rotated {@code --db-password-file} is picked up at the next reconnect, in both modes, without a restart: the
 * relay's role gets a new password and the file the new secret, every session of the role is terminated, and the
 * relay reconnects (CDC: its replication connection and engine too) and delivers what was written meanwhile.
 */
class PasswordRotationIT {

    private TestDatabase database;
    private PublishingRelay started;
    private String role;

    @TempDir
    Path dir;

    @BeforeEach
    void setUp() throws Exception {
        assertThat(RelayProcess.JAR).exists();
        database = MigratedDatabases.create("rotation");
        role = "rotating_" + database.name();
        // A role of its own, so that rotating its password touches no other test; it inherits the relay role's grants.
        database.execute("CREATE ROLE " + role + " LOGIN REPLICATION PASSWORD 'first-secret' IN ROLE "
                + database.relayUser());
    }

    @AfterEach
    void tearDown() throws Exception {
        if (started != null) {
            started.close();
        }
        database.execute("DROP ROLE IF EXISTS " + role);
        database.drop();
    }

    @ParameterizedTest(name = "--mode {0}")
    @ValueSource(strings = {"poll", "cdc"})
    void aRotatedPasswordFileIsReadAtTheNextReconnect(String mode) throws Exception {
        TestKafka kafka = TestKafka.shared();
        String topic = "rotation-it-" + mode + ".Stream";
        kafka.createTopic(topic, 1);
        Path secret = dir.resolve("db-password");
        Files.writeString(secret, "first-secret\n", StandardCharsets.UTF_8);
        started = PublishingRelay.of("rotation-" + mode, mode).on(database).as(role).kafka(kafka)
                .args("--db-password-file", secret.toString(), "--topic-template",
                        "rotation-it-" + mode + ".${aggregateType}", "--relay-name", "rotation-" + mode).start();
        RelayProcess relay = started.relay;
        OutboxWriter writer = new OutboxWriter(database, "public.outbox");
        List<String> expected = new ArrayList<>(write(writer, 20));
        await().atMost(Duration.ofSeconds(60)).until(() ->
                database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL") == 20);

        database.execute("ALTER ROLE " + role + " PASSWORD 'second-secret'");
        Files.writeString(secret, "second-secret\n", StandardCharsets.UTF_8);
        database.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = '" + role + "'");
        expected.addAll(write(writer, 20));

        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(topic, new HashSet<>(expected),
                Duration.ofMinutes(2));
        DeliveryReport report = DeliveryReport.of(records, expected);
        assertThat(report.nothingLost()).as("%s", report).isTrue();
        await().atMost(Duration.ofSeconds(60)).until(() ->
                database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL") == 40);
        // Only the new password can have connected again: every session of the role was ended after the change.
        assertThat(database.queryLong("SELECT count(*) FROM pg_stat_activity WHERE usename = '" + role + "'"))
                .isPositive();
        assertThat(relay.logText()).doesNotContain("first-secret", "second-secret");
        assertThat(relay.terminate(Duration.ofSeconds(60))).isZero();
    }

    private static List<String> write(OutboxWriter writer, int n) {
        List<OutboxWriter.Row> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(OutboxWriter.Row.of("Stream", "k" + (i % 4), i));
        }
        return writer.insert(rows);
    }
}
