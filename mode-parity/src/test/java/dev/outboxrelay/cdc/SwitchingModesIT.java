package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.Pacing;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter.Row;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import dev.outboxrelay.testkit.contract.Workload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * poll → cdc → poll on one table, with the real sources, while an application keeps writing, and with rows
 * written while neither runs: every event reaches the topic in per-key order and nothing is left unsent.
 */
class SwitchingModesIT {

    private static final Logger LOG = LoggerFactory.getLogger(SwitchingModesIT.class);
    private static final String TABLE = "public.outbox";

    private TestDatabase db;
    private TestKafka kafka;
    private OutboxWriter writer;
    private String prefix;
    private final List<OutboxSource> running = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        db = TestPostgres.shared().createDatabase("switch");
        CdcRelays.migrate(db, TABLE);
        kafka = TestKafka.shared();
        writer = new OutboxWriter(db, TABLE);
        prefix = "switch-" + UUID.randomUUID().toString().substring(0, 8);
        kafka.createTopic(prefix + ".Switch", 3);
    }

    @AfterEach
    void tearDown() {
        running.forEach(OutboxSource::close);
        db.drop();
    }

    @Test
    void pollThenCdcThenPollWhileWritingPublishesEveryEventOnce() throws Exception {
        Map<String, String> options = Map.of("topic-template", prefix + ".${aggregateType}");
        List<String> expected = new ArrayList<>();
        Workload app = Workload.start(writer, "Switch", 8, 400, 2, 15);

        OutboxSource poll = started(PollBesideCdc.startPoll(db, TABLE, kafka.bootstrapServers(), options));
        Pacing.pause(2000); // the source relays under load for a while before it is stopped
        stop(poll, app, "poll");
        expected.addAll(gap("gap-1"));

        OutboxSource cdc = started(CdcRelays.start(CdcRelays.settings(db, TABLE, options).build(),
                kafka.bootstrapServers(), options, RelayListener.none()));
        await().atMost(Duration.ofMinutes(1)).until(cdc::isHealthy);
        Pacing.pause(2000); // the source relays under load for a while before it is stopped
        stop(cdc, app, "cdc");
        expected.addAll(gap("gap-2"));

        started(PollBesideCdc.startPoll(db, TABLE, kafka.bootstrapServers(), options));
        expected.addAll(app.join());
        expected.addAll(writer.insert(List.of(Row.of("Switch", "after", 1), Row.of("Switch", "after", 2))));

        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(prefix + ".Switch", new HashSet<>(expected),
                Duration.ofMinutes(2));
        DeliveryReport report = DeliveryReport.of(records, expected);
        LOG.info("poll -> cdc -> poll: {} events, {} duplicate(s): {}", expected.size(), report.duplicateCount(),
                report);
        assertThat(report.nothingLost()).as("%s", report).isTrue();
        assertThat(report.inPerKeyOrder()).as("%s", report).isTrue();
        // Graceful stops settle what Kafka acknowledged, and CDC skips what poll marked: no duplicates at all.
        assertThat(report.duplicateCount()).as("%s", report).isZero();
        await().atMost(Duration.ofMinutes(1)).until(() -> db.queryLong(
                "SELECT count(*) FROM outbox WHERE sent_at IS NULL AND dead_lettered_at IS NULL") == 0);
    }

    private OutboxSource started(OutboxSource source) {
        running.add(source);
        return source;
    }

    private void stop(OutboxSource source, Workload app, String mode) {
        source.close();
        running.remove(source);
        LOG.info("{} stopped after {} committed event(s); the application is {}", mode, app.committedSoFar().size(),
                app.isDone() ? "done" : "still writing");
    }

    /** Rows written while no relay runs, on keys of their own. */
    private List<String> gap(String key) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            ids.addAll(writer.insert(List.of(Row.of("Switch", key, 2 * i), Row.of("Switch", key, 2 * i + 1))));
        }
        return ids;
    }
}
