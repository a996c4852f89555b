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
    private static final int KILLS = 5;

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
        OutboxWriter writer = new OutboxWriter(database, "public.outbox");
        List<String> expected = new java.util.ArrayList<>();
        int kills = 0;
        // One chunk of 10 keys x 1000 events per cycle, so every kill hits a running stream however slow the
        // machine is; chunks are joined in order, so each key's order stays defined by its single writer.
        for (int chunk = 0; chunk < KILLS; chunk++) {
            relay = startRelay(kafka);
            int activations = kills + 1;
            await().atMost(Duration.ofSeconds(60)).until(() -> count(ACTIVE) >= activations);
            Workload load = Workload.start(writer, "Stream", 10, 1000, 4, 20);
            Thread.sleep(300 + ThreadLocalRandom.current().nextInt(1200));
            assertThat(load.isDone()).as("chunk %d still being written when the relay is killed", chunk).isFalse();
            relay.destroyForcibly(); // SIGKILL: no shutdown hook, no draining
            assertThat(relay.waitFor(30, TimeUnit.SECONDS)).isTrue();
            kills++;
            expected.addAll(load.join());
        }
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
        // A JVM ended by SIGTERM reports 128 + 15 even when its shutdown hook finished cleanly.
        assertThat(relay.exitValue()).isIn(0, 143);
        assertThat(count("Poll source for public.outbox stopped")).isEqualTo(1);
    }

    private static final String ACTIVE = "Active poller of public.outbox now";

    private long count(String line) throws java.io.IOException {
        if (!Files.exists(log)) {
            return 0;
        }
        try (var lines = Files.lines(log)) {
            return lines.filter(l -> l.contains(line)).count();
        }
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
