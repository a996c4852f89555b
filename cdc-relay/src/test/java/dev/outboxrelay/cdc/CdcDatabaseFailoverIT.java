package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.spi.ILoggingEvent;
import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.CapturedLogs;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.PostgresFailover;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/**
 * The database fails over while the relay streams: a hot standby is promoted behind the address the relay uses.
 * Without a failover slot the standby has no logical slot: the relay reconnects, recreates its slot and rescans.
 * With {@code --slot-failover} (PostgreSQL 17+) the standby kept a synchronized copy and the relay resumes from it.
 * Either way a consumer sees every event committed on either server, in per-key order.
 */
class CdcDatabaseFailoverIT {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String SLOT = "outbox_relay";

    private final String aggregateType = "fo" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void promotedStandbyWithoutTheSlotGetsEveryEventPublished() throws Exception {
        try (PostgresFailover pg = PostgresFailover.start("failover", CdcDatabaseFailoverIT::migrate)) {
            List<ILoggingEvent> logs = failOverWhileStreaming(pg, false);
            assertThat(logs).filteredOn(e -> e.getLevel() == Level.ERROR)
                    .extracting(ILoggingEvent::getFormattedMessage).anySatisfy(m -> assertThat(m).startsWith(
                            "Replication slot '" + SLOT + "' is missing although the relay has stored offsets: it"
                                    + " was dropped, or the database failed over to a server without it."));
            assertThat(pg.database().queryLong("SELECT count(*) FROM pg_replication_slots"
                    + " WHERE slot_name = '" + SLOT + "'")).as("the slot on the new primary").isEqualTo(1);
        }
    }

    @Test
    void withAFailoverSlotThePromotedStandbyResumesFromItsSynchronizedCopy() throws Exception {
        try (PostgresFailover pg = PostgresFailover.withSlotSync(17, "failoverslot", CdcDatabaseFailoverIT::migrate)) {
            List<ILoggingEvent> logs = failOverWhileStreaming(pg, true);
            // Debezium reconnects to the new primary by itself and finds the slot: no restart, no rescan.
            assertThat(logs).extracting(ILoggingEvent::getLevel).as("nothing to recover, nothing to warn about")
                    .doesNotContain(Level.ERROR, Level.WARN);
            assertThat(pg.database().queryString("SELECT synced::text || ' ' || failover::text"
                    + " FROM pg_replication_slots WHERE slot_name = '" + SLOT + "'"))
                    .as("the new primary's slot is the synchronized copy, still a failover slot")
                    .isEqualTo("true true");

            // A relay started later (a restart, or another instance taking over) says where its slot came from.
            List<ILoggingEvent> restart = capture(() -> {
                try (OutboxSource again = relay(pg, true)) {
                    again.start();
                    await().atMost(WAIT).until(again::isHealthy);
                }
            });
            assertThat(restart).extracting(ILoggingEvent::getFormattedMessage)
                    .contains("Using replication slot '" + SLOT + "' (synchronized from a former primary)");
            assertThat(restart).filteredOn(e -> e.getLevel() == Level.WARN)
                    .extracting(ILoggingEvent::getFormattedMessage).as("the new primary has no standby to wait for")
                    .containsExactly("Replication slot '" + SLOT + "' is a failover slot but synchronized_standby_slots"
                            + " is empty: set it on the primary to the standbys' physical slots, so the relay never"
                            + " publishes an event a standby has not received");
        }
    }

    /**
     * Streams 50 events, writes 30 more and fails over while the relay may still publish them, writes 20 on the
     * new primary and checks all 100 arrive in per-key order. Returns what the slot handling logged meanwhile.
     */
    private List<ILoggingEvent> failOverWhileStreaming(PostgresFailover pg, boolean failoverSlot) throws Exception {
        try (OutboxSource relay = relay(pg, failoverSlot)) {
            relay.start();
            await().atMost(WAIT).until(relay::isHealthy);
            List<String> ids = new ArrayList<>(insert(writer(pg), 0, 50));
            await().atMost(WAIT).until(() -> writer(pg).unsent() == 0);
            if (failoverSlot) {
                pg.awaitSlotSynced(SLOT, WAIT);
            }
            ids.addAll(insert(writer(pg), 50, 30)); // published or not when the primary dies
            pg.awaitReplayed(WAIT);

            return capture(() -> {
                pg.failOver();
                ids.addAll(insert(writer(pg), 80, 20));
                DeliveryReport report = DeliveryReport.of(TopicReader.of(TestKafka.shared())
                        .readUntilIds("fo." + aggregateType, new HashSet<>(ids), WAIT), ids);
                assertThat(report.atLeastOnceInOrder()).as("%s", report).isTrue();
                await().atMost(WAIT).until(() -> writer(pg).unsent() == 0);
            });
        }
    }

    private OutboxSource relay(PostgresFailover pg, boolean failoverSlot) {
        return CdcSource.create(CdcSettings.builder(pg.jdbcUrl(), pg.database().relayUser(),
                        pg.database().relayPassword()).heartbeatInterval(Duration.ofSeconds(1))
                        .slotFailover(failoverSlot).build(),
                EventRouter.topicTemplate("fo.${aggregateType}"),
                EventPublisher.kafka(ProducerSettings.of(TestKafka.shared().bootstrapServers(), Map.of())),
                RelayListener.none());
    }

    /** What the source, its slot handling and its failover-slot checks log while {@code action} runs. */
    private static List<ILoggingEvent> capture(Action action) throws Exception {
        try (CapturedLogs logs = CapturedLogs.of(SlotManager.class, FailoverSlots.class, DebeziumCdcSource.class)) {
            action.run();
            return logs.events();
        }
    }

    @FunctionalInterface
    private interface Action {
        void run() throws Exception;
    }

    private static void migrate(TestDatabase db) throws Exception {
        try (Connection c = db.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
    }

    /** Writes to the current primary (the promoted standby after the failover). */
    private static OutboxWriter writer(PostgresFailover pg) {
        return new OutboxWriter(pg.database(), "public.outbox");
    }

    private List<String> insert(OutboxWriter writer, int from, int count) {
        return writer.insert(IntStream.range(from, from + count)
                .mapToObj(n -> OutboxWriter.Row.of(aggregateType, "key-" + n % 4, n)).toList());
    }

}
