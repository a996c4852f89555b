package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.PostgresFailover;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import dev.outboxrelay.testkit.contract.Workload;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The real relay process (the shaded jar) through a database failover: the primary is killed while the relay
 * publishes a burst, a streaming standby is promoted behind the relay's address, and the daemon (its lock
 * session, probes and source) must carry on by itself. A consumer gets every event from both servers.
 */
class DatabaseFailoverIT {

    private static final Duration WAIT = Duration.ofMinutes(3);

    @ParameterizedTest(name = "--mode {0}")
    @ValueSource(strings = {"poll", "cdc"})
    void theRelayRidesThroughADatabaseFailoverWithoutLoss(String mode) throws Exception {
        assertThat(RelayProcess.JAR).exists();
        TestKafka kafka = TestKafka.shared();
        String topic = "dbfailover-" + mode + ".Stream";
        kafka.createTopic(topic, 3);
        try (PostgresFailover pg = PostgresFailover.start("dbfailover", db -> {
            try (Connection c = db.connect()) {
                OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
            }
        })) {
            RelayProcess relay = RelayProcess.run("db-failover-" + mode, pg.jdbcUrl(), pg.database(), kafka, Map.of(),
                    "--mode", mode, "--topic-template", "dbfailover-" + mode + ".${aggregateType}",
                    "--standby-interval", "500ms");
            try {
                await().atMost(WAIT).until(() -> relay.readiness().contains("\"status\":\"ready\""));
                List<String> expected = new ArrayList<>(
                        Workload.write(new OutboxWriter(pg.database(), "public.outbox"), "Stream", 10, 300, 4, 0));
                pg.awaitReplayed(WAIT); // what the primary committed is on the standby; the relay may still be busy
                pg.failOver();
                expected.addAll(
                        Workload.write(new OutboxWriter(pg.database(), "public.outbox"), "Stream", 10, 300, 4, 0));

                DeliveryReport report = DeliveryReport.of(
                        TopicReader.of(kafka).readUntilIds(topic, new HashSet<>(expected), WAIT), expected);
                System.out.printf("Database failover under --mode %s: %d events, %d duplicates; %s%n", mode,
                        expected.size(), report.duplicateCount(), report);
                assertThat(report.nothingLost()).as("%s", report).isTrue();
                assertThat(report.inPerKeyOrder()).as("%s", report).isTrue();
                await().atMost(WAIT).until(() -> new OutboxWriter(pg.database(), "public.outbox").unsent() == 0);
                await().atMost(WAIT).until(() -> relay.readiness().contains("\"status\":\"ready\""));
                assertThat(relay.terminate(Duration.ofSeconds(60))).as("exit status after SIGTERM").isZero();
            } finally {
                relay.close();
            }
        }
    }
}
