package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
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
import org.slf4j.LoggerFactory;

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
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger log = (Logger) LoggerFactory.getLogger(DebeziumCdcSource.class);
        log.addAppender(logs);
        try (TestPostgres primary = TestPostgres.start(17, PostgresOptions.defaults())) {
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
        } finally {
            log.detachAppender(logs);
        }
    }

    private static List<String> warnings(ListAppender<ILoggingEvent> logs) {
        return logs.list.stream().filter(e -> e.getLevel() == Level.WARN).map(ILoggingEvent::getFormattedMessage)
                .toList();
    }
}
