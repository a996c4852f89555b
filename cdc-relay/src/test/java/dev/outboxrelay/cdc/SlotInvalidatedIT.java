package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.CapturedLogs;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.SlotInvalidation;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
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
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A slot PostgreSQL invalidated while the relay was stopped: the relay says why, recreates it and the rescan
 * publishes what the lost slot would have streamed. Invalidated for real: by {@code max_slot_wal_keep_size} (every
 * version; PostgreSQL 14 and 15 mark it differently from 16+) and by {@code idle_replication_slot_timeout}
 * (PostgreSQL 18). The settings are changed on the shared server for the moment of the invalidation only.
 */
class SlotInvalidatedIT {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String SLOT = "outbox_relay";

    private final List<OutboxSource> sources = new ArrayList<>();
    private final String aggregateType = "inv" + UUID.randomUUID().toString().substring(0, 8);
    private TestDatabase db;

    @AfterEach
    void tearDown() {
        sources.forEach(OutboxSource::close);
        if (db != null) {
            db.drop();
        }
    }

    @ParameterizedTest(name = "PostgreSQL {0}: {1}")
    @CsvSource({"0, wal_removed", "18, wal_removed", "18, idle_timeout"})
    void invalidatedSlotIsRecreatedAndTheRescanPublishesWhatWasWrittenMeanwhile(int major, String reason)
            throws Exception {
        db = TestPostgres.sharedOfMajor(major).createDatabase("slotinv");
        try (Connection c = db.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        db.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + db.relayUser());
        OutboxSource first = start();
        List<String> ids = new ArrayList<>(insert(30));
        await().atMost(WAIT).until(() -> writer().unsent() == 0);
        first.close();
        ids.addAll(insert(20));

        invalidate(reason);

        CapturedLogs logs = CapturedLogs.of(SlotManager.class);
        try (logs) {
            start();
        }
        ids.addAll(insert(10));
        String topic = "inv." + aggregateType;
        DeliveryReport report = DeliveryReport.of(
                TopicReader.of(TestKafka.shared()).readUntilIds(topic, new HashSet<>(ids), WAIT), ids);
        assertThat(report.atLeastOnceInOrder()).as("%s", report).isTrue();
        assertThat(logs.messages(Level.ERROR))
                .containsExactly("Replication slot '" + SLOT + "' was invalidated by PostgreSQL ("
                        + SlotManager.invalidationCause(reason) + "): dropping and recreating it; rows not yet"
                        + " published are recovered by a rescan of public.outbox");
        assertThat(slotStatus()).isNotEqualTo("lost");
    }

    /** Makes PostgreSQL invalidate the stopped relay's slot for {@code reason}; checks it did. */
    private void invalidate(String reason) {
        SlotInvalidation.invalidate(db, SLOT, reason);
        if (db.queryLong("SELECT current_setting('server_version_num')::int") >= 170000) {
            assertThat(db.queryString("SELECT invalidation_reason FROM pg_replication_slots WHERE slot_name = '"
                    + SLOT + "'")).isEqualTo(reason);
        }
    }

    private String slotStatus() {
        return db.queryString("SELECT wal_status FROM pg_replication_slots WHERE slot_name = '" + SLOT + "'");
    }


    private OutboxSource start() {
        CdcSettings settings = CdcSettings.builder(db.jdbcUrl(), db.relayUser(), db.relayPassword())
                .heartbeatInterval(Duration.ofSeconds(1)).build();
        OutboxSource source = CdcSource.create(settings, EventRouter.topicTemplate("inv.${aggregateType}"),
                EventPublisher.kafka(ProducerSettings.of(TestKafka.shared().bootstrapServers(), Map.of())),
                RelayListener.none());
        sources.add(source);
        source.start();
        await().atMost(WAIT).until(source::isHealthy);
        return source;
    }

    private OutboxWriter writer() {
        return new OutboxWriter(db, "public.outbox");
    }

    private List<String> insert(int count) {
        return writer().insert(IntStream.range(0, count)
                .mapToObj(n -> OutboxWriter.Row.of(aggregateType, "key-" + n % 3, n)).toList());
    }
}
