package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.testkit.CapturedLogs;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.PostgresOptions;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/**
 * CDC pointed at a standby. Since PostgreSQL 16 a standby can decode, so without a check the relay created its slot
 * there (pinning the standby's WAL), published, and then failed to mark anything sent, again and again. It now
 * says the server is a standby, creates nothing and waits; once the standby is promoted it relays.
 */
class CdcOnAStandbyIT {

    private static final Duration WAIT = Duration.ofSeconds(90);

    @Test
    void aStandbyGetsNoSlotAndIsWaitedForUntilItIsPromoted() throws Exception {
        String type = "standby" + UUID.randomUUID().toString().substring(0, 8);
        try (CapturedLogs logs = CapturedLogs.of(DebeziumCdcSource.class);
                TestPostgres primary = TestPostgres.start(17, PostgresOptions.defaults())) {
            TestDatabase onPrimary = primary.createDatabase("cdcstandby");
            CdcRelays.migrate(onPrimary, "public.outbox");
            List<String> ids = new ArrayList<>(new OutboxWriter(onPrimary, "public.outbox")
                    .insert(List.of(OutboxWriter.Row.of(type, "k", 0))));
            try (TestPostgres standby = primary.startStandby()) {
                TestDatabase onStandby = onPrimary.on(standby);
                await().atMost(WAIT).until(() -> onStandby.queryLong("SELECT count(*) FROM outbox") == 1);
                try (OutboxSource relay = CdcRelays.start(CdcRelays.settings(onStandby, "public.outbox", Map.of())
                        .build(), TestKafka.shared().bootstrapServers(), Map.of("topic-template",
                        "standby.${aggregateType}"), RelayListener.none())) {
                    await().atMost(WAIT).until(() -> warnings(logs).size() >= 2); // a retry happened too
                    assertThat(warnings(logs)).allMatch(m -> m.startsWith("CDC source cannot start (the database is a"
                            + " standby in recovery (read-only): point --db-url at the primary, or wait for this"
                            + " server's promotion); retrying in "));
                    assertThat(relay.isHealthy()).isFalse();
                    assertThat(onStandby.queryLong("SELECT count(*) FROM pg_replication_slots"))
                            .as("no slot on the standby").isZero();

                    onStandby.execute("SELECT pg_promote()");
                    ids.addAll(new OutboxWriter(onStandby, "public.outbox")
                            .insert(List.of(OutboxWriter.Row.of(type, "k", 1))));
                    DeliveryReport report = DeliveryReport.of(TopicReader.of(TestKafka.shared())
                            .readUntilIds("standby." + type, new HashSet<>(ids), WAIT), ids);
                    assertThat(report.atLeastOnceInOrder()).as("%s", report).isTrue();
                    await().atMost(WAIT).until(() -> new OutboxWriter(onStandby, "public.outbox").unsent() == 0);
                }
            }
        }
    }

    private static List<String> warnings(CapturedLogs logs) {
        return logs.messages(Level.WARN);
    }
}
