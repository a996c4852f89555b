package dev.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.ConnectWorker;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import dev.outboxrelay.testkit.contract.Workload;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Exactly-once on Connect's terms: a worker with {@code exactly.once.source.support=enabled} runs the connector with
 * {@code exactly.once.support=required}; it is SIGKILLed twice at random moments while two writers commit
 * 15,000 events, and a {@code read_committed} consumer sees every event exactly once, in per-key order: rows whose
 * transaction committed before a kill are marked by the next task from the committed offset, not published again.
 */
class ConnectExactlyOnceIT {

    private static final int KEYS = 100;
    private static final int EVENTS_PER_KEY = 150;
    /** Rows marked before each kill: spread over the stream, so the writers are still writing at the last. */
    private static final long[] KILL_AFTER = {2_000, 7_000};
    /**
     * A SIGKILLed task leaves its transaction open, and a new worker reads the offsets topic read_committed: it waits
     * until the broker aborts that transaction, after the task producers' {@code transaction.timeout.ms} (60 s by
     * default). Documented in docs/kafka-connect.md.
     */
    private static final Map<String, String> EXACTLY_ONCE_WORKER = Map.of("exactly.once.source.support", "enabled",
            "producer.transaction.timeout.ms", "3000");

    private TestDatabase database;
    private ConnectWorker worker;

    @AfterEach
    void tearDown() throws Exception {
        if (worker != null) {
            worker.close();
        }
        if (database != null) {
            database.drop();
        }
    }

    @Test
    void killedTwiceAReadCommittedConsumerSeesEveryEventOnce() throws Exception {
        database = Connectors.migrated(TestPostgres.shared().createDatabase("connecteos"));
        TestKafka kafka = TestKafka.shared();
        String prefix = "connect-eos-" + UUID.randomUUID().toString().substring(0, 8);
        String group = prefix + "-workers";
        kafka.createTopic(prefix + ".Stream", 2);
        Map<String, String> config = Connectors.config(database, prefix, 2);
        config.put("exactly.once.support", "required");

        worker = ConnectWorker.start("connect-eos-1", kafka.bootstrapServers(), group, Connectors.PLUGIN_PATH,
                EXACTLY_ONCE_WORKER);
        worker.putConnector("outbox", config);
        Workload load = Workload.start(new OutboxWriter(database, "public.outbox"), "Stream", KEYS, EVENTS_PER_KEY,
                2, 30);
        for (int kill = 1; kill <= KILL_AFTER.length; kill++) {
            long threshold = KILL_AFTER[kill - 1];
            await().atMost(Duration.ofMinutes(2)).until(() -> sent() > threshold);
            Thread.sleep(ThreadLocalRandom.current().nextLong(1000));
            System.out.println("Kill " + kill + " with " + sent() + " rows marked");
            worker.kill();
            worker = ConnectWorker.start("connect-eos-" + (kill + 1), kafka.bootstrapServers(), group,
                    Connectors.PLUGIN_PATH, EXACTLY_ONCE_WORKER);
        }
        assertThat(load.isDone()).as("the workers were killed while events were still being written").isFalse();
        List<String> expected = load.join();
        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(prefix + ".Stream", new HashSet<>(expected),
                Duration.ofMinutes(3));
        await().atMost(Duration.ofMinutes(1)).until(() ->
                database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL") == 0);
        // Anything published late would show up now.
        records = TopicReader.of(kafka).readAll(prefix + ".Stream");
        DeliveryReport report = DeliveryReport.of(records, expected);
        System.out.println("Exactly-once, two kills: " + report);
        assertThat(report.exactlyOnce()).as("%s", report).isTrue();
    }

    private long sent() {
        return database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL");
    }
}
