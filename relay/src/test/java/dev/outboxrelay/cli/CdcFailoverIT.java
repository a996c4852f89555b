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
 * Two CDC daemons with one relay name: one streams, the other stands by. kill -9 of the active one mid-stream
 * ends its lock session; the standby takes over and nothing is lost. Duplicates are counted and printed.
 */
class CdcFailoverIT {

    private static final String SLOT = "failover_it_slot";

    private PublishingRelay started;
    private RelayProcess second;

    @AfterEach
    void tearDown() throws Exception {
        if (second != null) {
            second.close();
        }
        if (started != null) {
            started.close(); // dropping the database drops the slot too
        }
    }

    @Test
    void killMinus9OfTheActiveInstanceLetsTheStandbyContinueWithoutLoss() throws Exception {
        TestKafka kafka = TestKafka.shared();
        String topic = "failover-it.Stream";
        kafka.createTopic(topic, 3);
        String[] args = {"--mode", "cdc", "--relay-name", "failover", "--slot-name", SLOT,
            "--topic-template", "failover-it.${aggregateType}", "--standby-interval", "500ms"};
        started = PublishingRelay.of("cdc-failover-a", "cdc").kafka(kafka).args(args).start();
        RelayProcess first = started.relay;
        TestDatabase database = started.database;
        Files.deleteIfExists(ItLogs.file("cdc-failover-b"));
        second = RelayProcess.run("cdc-failover-b", database, kafka, Map.of(), args);
        await().atMost(Duration.ofSeconds(90)).until(() -> second.readiness().contains("\"source\":\"standby\"")
                && second.readiness().contains("\"status\":\"ready\""));
        assertThat(second.readiness()).contains("\"role\":\"standby\"");
        assertThat(first.readiness()).contains("\"role\":\"active\"");

        CliRun status = CliRun.of(Map.of("RELAY_DB_PASSWORD", database.relayPassword()), "status",
                "--db-url", database.jdbcUrl(), "--db-user", database.relayUser(), "--slot-name", SLOT);
        assertThat(status.out()).contains("active instance: failover@", "(cdc lock, backend pid",
                "slot " + SLOT + ": active");

        Workload load = Workload.start(new OutboxWriter(database, "public.outbox"), "Stream", 10, 1000, 4, 100);
        await().atMost(Duration.ofSeconds(60)).until(() ->
                database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL") > 500);
        first.kill();
        assertThat(load.isDone()).as("the active relay died while events were still being written").isFalse();

        second.awaitPublishing(Duration.ofSeconds(60));
        List<String> expected = load.join();
        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(topic, new HashSet<>(expected),
                Duration.ofMinutes(3));
        DeliveryReport report = DeliveryReport.of(records, expected);
        System.out.printf("CDC failover after kill -9: %d events, %d duplicates; %s%n", expected.size(),
                report.duplicateCount(), report);
        assertThat(report.nothingLost()).as("%s", report).isTrue();
        assertThat(report.inPerKeyOrder()).as("%s", report).isTrue();
        assertThat(second.logText()).contains("is now the active relay of public.outbox");
        assertThat(second.terminate(Duration.ofSeconds(60))).isZero();
    }
}
