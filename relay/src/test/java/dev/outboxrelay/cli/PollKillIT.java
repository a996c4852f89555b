package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import dev.outboxrelay.testkit.contract.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The real daemon ({@code java -jar outbox-relay.jar run --mode poll}) is killed with SIGKILL again and again
 * while 50,000 events stream in: afterwards every event is on the topic, in per-key order, and the duplicates
 * stay within the documented bound of pipeline depth × batch size per crash.
 */
class PollKillIT {

    private static final Path JAR = Path.of("target", "outbox-relay.jar");
    private static final int BATCH_SIZE = 500;
    private static final int PIPELINE_DEPTH = 2;
    private static final int KILLS = 6;

    private TestDatabase database;
    private Process relay;
    private Path log;

    @BeforeEach
    void setUp() throws Exception {
        assertThat(JAR).as("the shaded jar is built in package, before this integration test").exists();
        database = TestPostgres.shared().createDatabase("killit");
        try (Connection c = database.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        Files.createDirectories(Path.of("target", "it-logs"));
        log = Path.of("target", "it-logs", "poll-kill-relay.log");
        Files.deleteIfExists(log);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (relay != null && relay.isAlive()) {
            relay.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        if (database != null) {
            database.drop();
        }
    }

    @Test
    void killMinus9DuringAStreamLosesNothingAndDuplicatesStayBounded() throws Exception {
        TestKafka kafka = TestKafka.shared();
        String topic = "kill-it." + "Stream";
        kafka.createTopic(topic, 3);
        Workload load = Workload.start(new OutboxWriter(database, "public.outbox"), "Stream", 10, 5000, 4, 20);

        int kills = 0;
        int killsDuringStream = 0;
        while (killsDuringStream < KILLS && kills < 3 * KILLS) {
            relay = startRelay(kafka);
            Thread.sleep(1500 + ThreadLocalRandom.current().nextInt(1500));
            if (!load.isDone()) {
                killsDuringStream++;
            }
            relay.destroyForcibly(); // SIGKILL: no shutdown hook, no draining
            assertThat(relay.waitFor(30, TimeUnit.SECONDS)).isTrue();
            kills++;
        }
        assertThat(killsDuringStream).as("kills while events were still being written").isGreaterThanOrEqualTo(KILLS);
        List<String> expected = load.join();
        assertThat(expected).hasSize(50_000);

        relay = startRelay(kafka);
        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(topic, new HashSet<>(expected),
                Duration.ofMinutes(3));
        DeliveryReport report = DeliveryReport.of(records, expected);
        assertThat(report.nothingLost()).as("%s", report).isTrue();
        assertThat(report.inPerKeyOrder()).as("%s", report).isTrue();
        // Documented bound: per crash at most the batches in flight, pipeline depth x batch size.
        assertThat(report.duplicateCount()).as("duplicates after %d kills: %s", kills, report)
                .isLessThanOrEqualTo(kills * PIPELINE_DEPTH * BATCH_SIZE);
        System.out.printf("kill -9 x%d: %d events, %d duplicates (bound %d)%n", kills, expected.size(),
                report.duplicateCount(), kills * PIPELINE_DEPTH * BATCH_SIZE);
        await().atMost(Duration.ofMinutes(1)).until(() ->
                database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL") == 0);

        relay.destroy(); // SIGTERM: graceful
        assertThat(relay.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(relay.exitValue()).isZero();
    }

    private Process startRelay(TestKafka kafka) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        ProcessBuilder pb = new ProcessBuilder(java, "-Xmx512m", "-jar", JAR.toString(), "run", "--mode", "poll",
                "--db-url", database.jdbcUrl(), "--db-user", database.relayUser(),
                "--kafka-bootstrap", kafka.bootstrapServers(),
                "--topic-template", "kill-it.${aggregateType}",
                "--batch-size", String.valueOf(BATCH_SIZE), "--pipeline-depth", String.valueOf(PIPELINE_DEPTH),
                "--poll-interval", "100ms", "--standby-interval", "200ms", "--http-port", "0");
        pb.environment().put("RELAY_DB_PASSWORD", database.relayPassword());
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        return pb.start();
    }

}
