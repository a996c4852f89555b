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
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The real relay process (the shaded jar) through a database failover: the primary is killed while the relay
 * publishes a burst, a streaming standby is promoted behind the relay's address, and the daemon (its lock
 * session, probes and source) must carry on by itself. A consumer gets every event from both servers. In CDC mode
 * once with a slot the standby lacks (PostgreSQL 15) and once with a failover slot it synchronized (17).
 */
class DatabaseFailoverIT {

    private static final Duration WAIT = Duration.ofMinutes(3);

    @ParameterizedTest(name = "--mode {0} --slot-failover {1}")
    @CsvSource({"poll, false", "cdc, false", "cdc, true"})
    void theRelayRidesThroughADatabaseFailoverWithoutLoss(String mode, boolean failoverSlot) throws Exception {
        assertThat(RelayProcess.JAR).exists();
        TestKafka kafka = TestKafka.shared();
        String name = "db-failover-" + mode + (failoverSlot ? "-slot" : "");
        String topic = name + ".Stream";
        kafka.createTopic(topic, 3);
        PostgresFailover.SqlSetup migrate = db -> {
            try (Connection c = db.connect()) {
                OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
            }
        };
        try (PostgresFailover pg = failoverSlot ? PostgresFailover.withSlotSync(17, "dbfailover", migrate)
                : PostgresFailover.start("dbfailover", migrate)) {
            List<String> args = new ArrayList<>(List.of("--mode", mode, "--topic-template",
                    name + ".${aggregateType}", "--standby-interval", "500ms"));
            if (failoverSlot) {
                args.add("--slot-failover");
            }
            RelayProcess relay = RelayProcess.run(name, pg.jdbcUrl(), pg.database(), kafka, Map.of(),
                    args.toArray(String[]::new));
            try {
                relay.awaitPublishing(WAIT);
                if (failoverSlot) {
                    pg.awaitSlotSynced("outbox_relay", WAIT);
                }
                List<String> expected = new ArrayList<>(
                        Workload.write(new OutboxWriter(pg.database(), "public.outbox"), "Stream", 10, 300, 4, 0));
                pg.awaitReplayed(WAIT); // what the primary committed is on the standby; the relay may still be busy
                pg.failOver();
                expected.addAll(
                        Workload.write(new OutboxWriter(pg.database(), "public.outbox"), "Stream", 10, 300, 4, 0));

                DeliveryReport report = DeliveryReport.of(
                        TopicReader.of(kafka).readUntilIds(topic, new HashSet<>(expected), WAIT), expected);
                System.out.printf("Database failover under --mode %s --slot-failover %s: %d events, %d duplicates;"
                        + " %s%n", mode, failoverSlot, expected.size(), report.duplicateCount(), report);
                assertThat(report.nothingLost()).as("%s", report).isTrue();
                assertThat(report.inPerKeyOrder()).as("%s", report).isTrue();
                await().atMost(WAIT).until(() -> new OutboxWriter(pg.database(), "public.outbox").unsent() == 0);
                await().atMost(WAIT).until(() -> relay.readiness().contains("\"status\":\"ready\""));
                assertThat(relay.terminate(Duration.ofSeconds(60))).as("exit status after SIGTERM").isZero();
                if (failoverSlot) {
                    // The lock session died with the primary, so the daemon restarted the source on the new one.
                    assertThat(relay.logText()).contains("Using replication slot 'outbox_relay' (synchronized from a"
                            + " former primary)").doesNotContain("is missing although the relay has stored offsets");
                }
            } finally {
                relay.close();
            }
        }
    }
}
