package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ItLogs;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import dev.outboxrelay.testkit.contract.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * One table lock across modes: a poll relay and a CDC relay on the same table (different relay names, so nothing
 * else ties them) never publish at once. The second stands by, {@code status} names the holder and its mode, and
 * after kill -9 of the active poll relay the CDC one takes over mid-stream with nothing lost. Both warm their
 * pipeline up at start without sending anything.
 */
class OneActiveRelayPerTableIT {

    private static final String TOPIC = "one-lock-it.Stream";

    private PublishingRelay started;
    private RelayProcess cdc;

    @AfterEach
    void tearDown() throws Exception {
        if (cdc != null) {
            cdc.close();
        }
        if (started != null) {
            started.close(); // dropping the database drops the slot too
        }
    }

    @Test
    void aPollAndACdcRelayOnOneTableNeverPublishAtOnceAndTheStandbyTakesOver() throws Exception {
        TestKafka kafka = TestKafka.shared();
        kafka.createTopic(TOPIC, 3);
        String template = "one-lock-it.${aggregateType}";
        started = PublishingRelay.of("one-lock-poll", "poll").kafka(kafka).args("--relay-name", "orders-poll",
                "--topic-template", template, "--standby-interval", "500ms").start();
        RelayProcess poll = started.relay;
        TestDatabase database = started.database;
        Files.deleteIfExists(ItLogs.file("one-lock-cdc"));
        cdc = RelayProcess.run("one-lock-cdc", database, kafka, Map.of(), "--mode", "cdc", "--relay-name",
                "orders-cdc", "--slot-name", "one_lock_it", "--topic-template", template,
                "--standby-interval", "500ms");
        await().atMost(Duration.ofSeconds(60)).until(() -> cdc.readiness().contains("\"status\":\"ready\""));
        assertThat(cdc.readiness()).contains("\"role\":\"standby\"");
        assertThat(cdc.logText()).contains("Another relay (poll or cdc) is active on public.outbox; standing by");

        CliRun status = CliRun.of(Map.of("RELAY_DB_PASSWORD", database.relayPassword()), "status",
                "--db-url", database.jdbcUrl(), "--db-user", database.relayUser());
        assertThat(status.out()).contains("active instance: orders-poll@", "/poll (poll lock, backend pid");

        Workload load = Workload.start(new OutboxWriter(database, "public.outbox"), "Stream", 10, 1000, 4, 100);
        await().atMost(Duration.ofSeconds(60)).until(() ->
                database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL") > 500);
        assertThat(cdc.readiness()).as("still standing by while poll publishes").contains("\"role\":\"standby\"");
        poll.kill();
        assertThat(load.isDone()).as("the active relay died while events were still being written").isFalse();

        cdc.awaitPublishing(Duration.ofSeconds(60));
        List<String> expected = load.join();
        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(TOPIC, new HashSet<>(expected),
                Duration.ofMinutes(3));
        DeliveryReport report = DeliveryReport.of(records, expected);
        System.out.printf("Poll to CDC takeover after kill -9: %d events, %d duplicates; %s%n", expected.size(),
                report.duplicateCount(), report);
        assertThat(report.nothingLost()).as("%s", report).isTrue();
        assertThat(report.inPerKeyOrder()).as("%s", report).isTrue();
        assertThat(cdc.logText()).contains("is now the active relay of public.outbox");
        // Both instances warmed their pipeline at start (the standby too, for its takeover), and nothing of it left
        // the process: the synthetic events' topics (aggregate types warmup and warmup_order) were never written to.
        for (RelayProcess relay : List.of(poll, cdc)) {
            assertThat(relay.logText()).contains("Warmed up the delivery pipeline on 20000 synthetic events");
        }
        assertThat(kafka.admin().listTopics().names().get()).as("topics on the broker")
                .noneMatch(t -> t.startsWith("one-lock-it.warmup"));
        CliRun after = CliRun.of(Map.of("RELAY_DB_PASSWORD", database.relayPassword()), "status",
                "--db-url", database.jdbcUrl(), "--db-user", database.relayUser());
        assertThat(after.out()).contains("active instance: orders-cdc@", "/cdc (cdc lock, backend pid");
        assertThat(cdc.terminate(Duration.ofSeconds(60))).isZero();
    }
}
