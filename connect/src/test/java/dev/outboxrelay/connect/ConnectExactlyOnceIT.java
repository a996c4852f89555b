package dev.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.ConnectWorker;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.Pacing;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import dev.outboxrelay.testkit.contract.Workload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Exactly-once on Connect's terms: a worker with {@code exactly.once.source.support=enabled} runs the connector with
 * {@code exactly.once.support=required}; it is SIGKILLed twice at random moments while two writers commit
 * 12,000 events (three bursts of 4,000, one per worker), and a {@code read_committed} consumer sees every event exactly once, in per-key order: rows whose
 * transaction committed before a kill are marked by the next task from the committed offset, not published again.
 */
class ConnectExactlyOnceIT {

    private static final int BURSTS = 3;
    private static final int KEYS = 40;
    private static final int EVENTS_PER_KEY = 100;
    /** Rows of its burst a worker has marked when it is killed. */
    private static final long KILL_AFTER = 1_200;
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
        Map<String, String> config = Connectors.config(database, prefix, 2);
        config.put("exactly.once.support", "required");
        OutboxWriter writer = new OutboxWriter(database, "public.outbox");
        List<Workload> bursts = new ArrayList<>();
        List<String> topics = new ArrayList<>();

        worker = ConnectWorker.start("connect-eos-1", kafka.bootstrapServers(), group, Connectors.PLUGIN_PATH,
                EXACTLY_ONCE_WORKER);
        worker.putConnector("outbox", config);
        // One burst per worker, each to a topic of its own, so every kill lands while its worker is mid-burst
        // however long a worker takes to start.
        for (int burst = 1; burst <= BURSTS; burst++) {
            String type = "Stream" + burst;
            kafka.createTopic(prefix + "." + type, 2);
            topics.add(prefix + "." + type);
            // Both tasks relay (probe rows of eight keys, which fall in both shards, are marked) before the burst
            // is written, so the burst is written while they run rather than found as a backlog.
            String probe = "Probe" + burst;
            List<OutboxWriter.Row> probes = new ArrayList<>();
            for (int k = 0; k < 8; k++) {
                probes.add(OutboxWriter.Row.of(probe, "probe-" + k, burst));
            }
            writer.insert(probes);
            await().atMost(Duration.ofMinutes(2)).until(() -> marked(probe) == probes.size());
            bursts.add(Workload.start(writer, type, KEYS, EVENTS_PER_KEY, 2, 15));
            if (burst == BURSTS) {
                break;
            }
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(20))
                    .until(() -> marked(type) >= KILL_AFTER);
            Pacing.pause(ThreadLocalRandom.current().nextLong(500)); // killed at a random point of the burst
            long marked = marked(type);
            worker.kill();
            System.out.println("Kill " + burst + " with " + marked + " of the burst's rows marked");
            assertThat(marked).as("kill %d came mid-burst", burst).isLessThan(KEYS * EVENTS_PER_KEY);
            worker = ConnectWorker.start("connect-eos-" + (burst + 1), kafka.bootstrapServers(), group,
                    Connectors.PLUGIN_PATH, EXACTLY_ONCE_WORKER);
        }
        List<String> expected = new ArrayList<>();
        for (Workload burst : bursts) {
            expected.addAll(burst.join());
        }
        await().atMost(Duration.ofMinutes(2)).until(() ->
                database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL") == 0);
        // Everything is marked: anything published twice is on the topics by now.
        List<ReadRecord> records = new ArrayList<>();
        TopicReader reader = TopicReader.of(kafka);
        for (String topic : topics) {
            records.addAll(reader.readAll(topic));
        }
        DeliveryReport report = DeliveryReport.of(records, expected);
        System.out.println("Exactly-once, two kills: " + report);
        assertThat(report.exactlyOnce()).as("%s", report).isTrue();
    }

    private long marked(String aggregateType) {
        return database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL AND aggregate_type = '"
                + aggregateType + "'");
    }

}
