package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
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
import org.slf4j.LoggerFactory;

/**
 * The database fails over while the relay streams: a hot standby, which has no logical slot, is promoted behind
 * the address the relay uses. The relay reconnects, recreates its slot and rescans; a consumer sees every event
 * committed on either server, in per-key order.
 */
class DatabaseFailoverTest {

    private static final Duration WAIT = Duration.ofSeconds(120);

    private final String aggregateType = "fo" + UUID.randomUUID().toString().substring(0, 8);

    @Test
    void promotedStandbyWithoutTheSlotGetsEveryEventPublished() throws Exception {
        try (PostgresFailover pg = PostgresFailover.start("failover", DatabaseFailoverTest::migrate);
             OutboxSource relay = CdcSource.create(CdcSettings.builder(pg.jdbcUrl(), pg.database().relayUser(),
                             pg.database().relayPassword()).heartbeatInterval(Duration.ofSeconds(1)).build(),
                     EventRouter.topicTemplate("fo.${aggregateType}"),
                     EventPublisher.kafka(ProducerSettings.of(TestKafka.shared().bootstrapServers(), Map.of())),
                     RelayListener.none())) {
            relay.start();
            await().atMost(WAIT).until(relay::isHealthy);
            List<String> ids = new ArrayList<>(insert(writer(pg), 0, 50));
            await().atMost(WAIT).until(() -> writer(pg).unsent() == 0);
            ids.addAll(insert(writer(pg), 50, 30)); // published or not when the primary dies
            pg.awaitReplayed(WAIT);

            ListAppender<ILoggingEvent> logs = new ListAppender<>();
            logs.start();
            Logger slotLog = (Logger) LoggerFactory.getLogger(SlotManager.class);
            slotLog.addAppender(logs);
            try {
                pg.failOver();
                ids.addAll(insert(writer(pg), 80, 20));
                DeliveryReport report = DeliveryReport.of(TopicReader.of(TestKafka.shared())
                        .readUntilIds("fo." + aggregateType, new HashSet<>(ids), WAIT), ids);
                assertThat(report.atLeastOnceInOrder()).as("%s", report).isTrue();
                await().atMost(WAIT).until(() -> writer(pg).unsent() == 0);
            } finally {
                slotLog.detachAppender(logs);
            }
            assertThat(logs.list).filteredOn(e -> e.getLevel() == Level.ERROR)
                    .extracting(ILoggingEvent::getFormattedMessage).anySatisfy(m -> assertThat(m).startsWith(
                            "Replication slot 'outbox_relay' is missing although the relay has stored offsets: it"
                                    + " was dropped, or the database failed over to a server without it."));
            assertThat(pg.database().queryLong("SELECT count(*) FROM pg_replication_slots"
                    + " WHERE slot_name = 'outbox_relay'")).as("the slot on the new primary").isEqualTo(1);
        }
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
