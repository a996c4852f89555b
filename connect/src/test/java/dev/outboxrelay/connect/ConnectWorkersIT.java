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
import dev.outboxrelay.testkit.contract.OutboxWriter.Row;
import dev.outboxrelay.testkit.contract.Workload;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.event.OutboxEvents;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The connector on two real Connect workers (each its own JVM, the plugin loaded from {@code plugin.path}),
 * {@code tasks.max=4}, against a real PostgreSQL and a real broker: a transaction that commits late is not skipped;
 * 50,000 events of 200 keys arrive complete and in per-key order while one worker is SIGKILLed mid-stream and its
 * tasks move to the other.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ConnectWorkersIT {

    private static final Path PLUGIN_PATH = Connectors.PLUGIN_PATH;
    private static final String CONNECTOR = "outbox";
    private static final int TASKS = 4;
    private static final int KEYS = 200;
    private static final int EVENTS_PER_KEY = 250;
    private static final int BATCH_SIZE = 200;
    private static final int PIPELINE_DEPTH = 2;

    private static TestDatabase database;
    private static TestKafka kafka;
    private static ConnectWorker first;
    private static ConnectWorker second;
    private static String prefix;

    @BeforeAll
    static void startWorkers() throws Exception {
        assertThat(PLUGIN_PATH.resolve("outbox-relay-connect")).as("the plugin is built in package").isDirectory();
        database = Connectors.migrated(TestPostgres.shared().createDatabase("connect"));
        kafka = TestKafka.shared();
        prefix = "connect-" + UUID.randomUUID().toString().substring(0, 8);
        kafka.createTopic(prefix + ".Stream", 4);
        String group = prefix + "-workers";
        first = ConnectWorker.start("connect-worker-1", kafka.bootstrapServers(), group, PLUGIN_PATH, Map.of());
        second = ConnectWorker.start("connect-worker-2", kafka.bootstrapServers(), group, PLUGIN_PATH, Map.of());
        first.putConnector(CONNECTOR, connectorConfig());
        await().atMost(Duration.ofMinutes(1)).until(() -> first.runningTaskWorkers(CONNECTOR).size() == TASKS);
    }

    static Map<String, String> connectorConfig() {
        Map<String, String> c = Connectors.config(database, prefix, TASKS);
        c.put("batch-size", Integer.toString(BATCH_SIZE));
        c.put("pipeline-depth", Integer.toString(PIPELINE_DEPTH));
        c.put("max-attempts", "2");
        return c;
    }

    @AfterAll
    static void stopWorkers() throws Exception {
        if (first != null) {
            first.close();
        }
        if (second != null) {
            second.close();
        }
        if (database != null) {
            database.drop();
        }
    }

    @Test
    @Order(1)
    void tasksSpreadOverBothWorkersAndALateCommitIsNotSkipped() throws Exception {
        assertThat(new HashSet<>(first.runningTaskWorkers(CONNECTOR)))
                .containsExactlyInAnyOrder(first.workerId(), second.workerId());
        OutboxWriter writer = new OutboxWriter(database, "public.outbox");
        TopicReader reader = TopicReader.of(kafka);
        try (Connection late = database.connect()) {
            late.setAutoCommit(false);
            // Takes the lowest seq, commits last: every task reads from the commit horizon's floor, not after the
            // highest seq it saw.
            List<String> lateIds = writer.insert(late, List.of(Row.of("Late", "late-key", 1)));
            List<String> early = writer.insert(List.of(Row.of("Late", "a", 1), Row.of("Late", "b", 1),
                    Row.of("Late", "c", 1), Row.of("Late", "d", 1)));
            reader.readUntilIds(prefix + ".Late", new HashSet<>(early), Duration.ofSeconds(60));
            late.commit();
            List<ReadRecord> all = reader.readUntilIds(prefix + ".Late", new HashSet<>(lateIds),
                    Duration.ofSeconds(60));
            assertThat(all).extracting(ReadRecord::id).containsAll(lateIds);
        }
        await().atMost(Duration.ofSeconds(30)).until(() ->
                database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL") == 0);
    }

    @Test
    @Order(2)
    void aRecordIsByteForByteWhatTheDaemonsRouterMakesOfTheRow() throws Exception {
        UUID id = UUID.randomUUID();
        new OutboxWriter(database, "public.outbox").insert(List.of(new Row(id, "Same", "order-7", "Placed",
                "{\"total\": 12.5, \"items\": [1, 2]}", "{\"tenant\": \"acme\"}")));
        ReadRecord read = TopicReader.of(kafka).readUntilIds(prefix + ".Same", Set.of(id.toString()),
                Duration.ofSeconds(60)).stream().filter(r -> id.toString().equals(r.id())).findFirst().orElseThrow();
        ProducerRecord<byte[], byte[]> daemon;
        try (Connection c = database.connect(); PreparedStatement ps = c.prepareStatement("SELECT aggregate_type,"
                + " aggregate_id, event_type, payload::text, headers::text, created_at FROM outbox WHERE id = ?")) {
            ps.setObject(1, id);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                daemon = KafkaOptions.router(ConnectorOptions.resolve(connectorConfig())).route(OutboxEvents.fromRow(
                        id, rs.getString(1), rs.getString(2), rs.getString(3), rs.getString(4), rs.getString(5),
                        rs.getObject(6, OffsetDateTime.class).toInstant()));
            }
        }
        assertThat(read.topic()).isEqualTo(daemon.topic());
        assertThat(read.key()).isEqualTo(new String(daemon.key(), StandardCharsets.UTF_8));
        assertThat(read.value()).isEqualTo(new String(daemon.value(), StandardCharsets.UTF_8));
        List<ReadRecord.Header> headers = new ArrayList<>();
        daemon.headers().forEach(h -> headers.add(new ReadRecord.Header(h.key(), h.value())));
        assertThat(read.rawHeaders()).containsExactlyElementsOf(headers);
        assertThat(read.headers()).containsEntry("tenant", "acme").containsEntry("type", "Placed");
    }

    @Test
    @Order(3)
    void aBadRowIsDeadLetteredOnItsOwnAndTheRestFlows() throws Exception {
        OutboxWriter writer = new OutboxWriter(database, "public.outbox");
        // Routed to an illegal topic name: malformed, dead-lettered at once. Larger than the worker producer's
        // max.request.size: Kafka refuses it, errors.tolerance=all hands it back, and after max-attempts (2) it is
        // a dead letter too. Neither holds back other keys.
        List<String> malformed = writer.insert(List.of(Row.of("Bad Type!", "bad-1", 1)));
        String big = "{\"blob\": \"" + "x".repeat(1_200_000) + "\"}";
        List<String> tooLarge = writer.insert(List.of(new Row(UUID.randomUUID(), "Fail", "big-1", "Happened", big,
                null)));
        List<String> fine = writer.insert(List.of(Row.of("Fail", "ok-1", 1), Row.of("Fail", "ok-2", 1)));
        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(prefix + ".Fail", new HashSet<>(fine),
                Duration.ofSeconds(60));
        assertThat(records).extracting(ReadRecord::id).containsAll(fine).doesNotContainAnyElementsOf(tooLarge);
        await().atMost(Duration.ofSeconds(60)).until(() -> database.queryLong("SELECT count(*) FROM outbox"
                + " WHERE dead_lettered_at IS NOT NULL") == 2);
        assertThat(database.queryString("SELECT last_error FROM outbox WHERE id = '" + malformed.get(0) + "'"))
                .contains("gives an illegal Kafka topic name");
        assertThat(database.queryLong("SELECT attempts FROM outbox WHERE id = '" + tooLarge.get(0) + "'"))
                .isEqualTo(2);
        assertThat(database.queryString("SELECT last_error FROM outbox WHERE id = '" + tooLarge.get(0) + "'"))
                .contains("not delivered by Kafka Connect");
        database.execute("DELETE FROM outbox WHERE dead_lettered_at IS NOT NULL"); // the next test counts unsent rows
    }

    @Test
    @Order(4)
    void fiftyThousandEventsWhileAWorkerIsKilled() throws Exception {
        long sentBefore = sent();
        Workload load = Workload.start(new OutboxWriter(database, "public.outbox"), "Stream", KEYS, EVENTS_PER_KEY,
                2, 1);
        await().atMost(Duration.ofMinutes(1)).until(() -> sent() - sentBefore >= 10_000);
        long killedTasks = first.runningTaskWorkers(CONNECTOR).stream().filter(second.workerId()::equals).count();
        long marked = sent() - sentBefore;
        second.kill(); // SIGKILL: its tasks neither stop nor flush
        assertThat(marked).as("the worker died mid-stream").isLessThan(KEYS * EVENTS_PER_KEY);
        await().atMost(Duration.ofMinutes(1)).until(() -> first.runningTaskWorkers(CONNECTOR).stream()
                .filter(first.workerId()::equals).count() == TASKS);
        List<String> expected = load.join();
        assertThat(expected).hasSize(KEYS * EVENTS_PER_KEY);

        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(prefix + ".Stream", new HashSet<>(expected),
                Duration.ofMinutes(3));
        DeliveryReport report = DeliveryReport.of(records, expected);
        System.out.println("Two workers, one killed: " + report);
        assertThat(report.nothingLost()).as("%s", report).isTrue();
        assertThat(report.inPerKeyOrder()).as("%s", report).isTrue();
        // The documented bound: what the killed worker's tasks had in flight (published, not marked yet).
        assertThat((long) report.duplicateCount()).as("%s", report)
                .isLessThanOrEqualTo(killedTasks * BATCH_SIZE * PIPELINE_DEPTH);
        await().atMost(Duration.ofMinutes(1)).until(() ->
                database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL") == 0);
    }

    @Test
    @Order(5)
    void reshardedToTwoTasksItRelaysAndPurgesSentRowsAfterTheRetention() throws Exception {
        Map<String, String> config = connectorConfig();
        config.put("tasks.max", "2");
        config.put("retention", "1s");
        config.put("purge-interval", "1s");
        first.putConnector(CONNECTOR, config);
        OutboxWriter writer = new OutboxWriter(database, "public.outbox");
        List<String> ids = writer.insert(List.of(Row.of("Again", "k-1", 1), Row.of("Again", "k-2", 1),
                Row.of("Again", "k-3", 1), Row.of("Again", "k-4", 1)));
        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(prefix + ".Again", new HashSet<>(ids),
                Duration.ofSeconds(60));
        assertThat(records).extracting(ReadRecord::id).containsAll(ids);
        await().atMost(Duration.ofSeconds(30)).until(() -> first.status(CONNECTOR).path("tasks").size() == 2);
        // Task 0 purges sent rows older than the retention, the 50,000 above included.
        await().atMost(Duration.ofSeconds(60)).until(() -> database.queryLong("SELECT count(*) FROM outbox") == 0);
    }

    private static long sent() {
        return database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL");
    }
}
