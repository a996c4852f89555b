package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assertions.assertTimeout;

import ch.qos.logback.classic.Level;
import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.CapturedLogs;
import dev.outboxrelay.testkit.Pacing;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The CDC source against a real PostgreSQL (wal_level=logical) and a real Kafka broker. */
class CdcSourceIT {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private TestDatabase db;
    private TestKafka kafka;
    private String aggregateType;
    private String topic;
    private final List<OutboxSource> sources = new ArrayList<>();

    @BeforeEach
    void setUp() throws SQLException {
        db = TestPostgres.shared().createDatabase("cdc");
        kafka = TestKafka.shared();
        aggregateType = "agg" + UUID.randomUUID().toString().substring(0, 8);
        topic = "cdc." + aggregateType;
        try (Connection c = db.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        db.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + db.relayUser());
    }

    @AfterEach
    void tearDown() {
        sources.forEach(OutboxSource::close);
        db.drop();
    }

    private OutboxSource create(Consumer<CdcSettings.Builder> tweak) {
        CdcSettings.Builder b = CdcSettings.builder(db.jdbcUrl(), db.relayUser(), db.relayPassword())
                .heartbeatInterval(Duration.ofSeconds(1)).maxAttempts(3);
        tweak.accept(b);
        OutboxSource source = CdcSource.create(b.build(), EventRouter.topicTemplate("cdc.${aggregateType}"),
                EventPublisher.kafka(ProducerSettings.of(kafka.bootstrapServers(), Map.of())), RelayListener.none());
        sources.add(source);
        return source;
    }

    private OutboxSource start(Consumer<CdcSettings.Builder> tweak) {
        OutboxSource source = create(tweak);
        source.start();
        await().atMost(WAIT).until(source::isHealthy);
        return source;
    }

    private OutboxSource start() {
        return start(b -> { });
    }

    private List<String> insert(int count, int keys) throws SQLException {
        List<String> ids = new ArrayList<>();
        try (Connection c = db.connect();
             PreparedStatement ps = c.prepareStatement("INSERT INTO outbox (id, aggregate_type, aggregate_id,"
                     + " event_type, payload, headers) VALUES (?, ?, ?, 'created', ?::jsonb, '{\"trace\":\"t\"}')")) {
            for (int i = 0; i < count; i++) {
                UUID id = UUID.randomUUID();
                ps.setObject(1, id);
                ps.setString(2, aggregateType);
                ps.setString(3, "key-" + (i % keys));
                ps.setString(4, "{\"n\":" + i + "}");
                ps.addBatch();
                ids.add(id.toString());
            }
            ps.executeBatch();
        }
        return ids;
    }

    private List<ReadRecord> awaitIds(List<String> ids) {
        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(topic, new HashSet<>(ids), WAIT);
        // A set difference: AssertJ's containsAll compares element by element (minutes for 50,000 ids).
        Set<String> missing = new HashSet<>(ids);
        records.forEach(r -> missing.remove(r.id()));
        assertThat(missing).as("ids not on the topic").isEmpty();
        return records;
    }

    /** First occurrence of every id, per key, must follow insertion order. */
    private static void assertPerKeyOrder(List<ReadRecord> records, List<String> idsInOrder) {
        Map<String, Integer> position = new java.util.HashMap<>();
        for (int i = 0; i < idsInOrder.size(); i++) {
            position.put(idsInOrder.get(i), i);
        }
        Map<String, Integer> lastPerKey = new java.util.HashMap<>();
        Set<String> seen = new LinkedHashSet<>();
        for (ReadRecord r : records) {
            if (!seen.add(r.id()) || !position.containsKey(r.id())) {
                continue;
            }
            int pos = position.get(r.id());
            Integer last = lastPerKey.put(r.key(), pos);
            assertThat(last == null || last < pos).as("per-key order of %s", r.key()).isTrue();
        }
    }

    private long unsent() {
        return db.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL AND dead_lettered_at IS NULL");
    }

    @Test
    void rowsWrittenBeforeTheSlotExistedArePublishedByTheRescanThenStreamingFollows() throws SQLException {
        List<String> before = insert(200, 7);
        start();
        List<String> after = insert(300, 7);
        List<String> all = new ArrayList<>(before);
        all.addAll(after);
        List<ReadRecord> records = awaitIds(all);
        assertPerKeyOrder(records, all);
        ReadRecord first = records.stream().filter(r -> r.id().equals(all.get(0))).findFirst().orElseThrow();
        assertThat(first.key()).isEqualTo("key-0");
        assertThat(first.value()).isEqualTo("{\"n\": 0}");
        assertThat(first.headers()).containsEntry("type", "created").containsEntry("aggregate_type", aggregateType)
                .containsEntry("trace", "t");
        await().atMost(WAIT).until(() -> unsent() == 0);
        assertThat(db.queryLong("SELECT count(*) FROM outbox_cdc_offsets WHERE relay_name = 'outbox-relay'"))
                .isPositive();
    }

    @Test
    void insertAndDeleteInOneTransactionIsStillPublished() throws SQLException {
        start();
        UUID id = UUID.randomUUID();
        db.execute("BEGIN; INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) VALUES ('"
                + id + "', '" + aggregateType + "', 'k', 'created', '{}'); DELETE FROM outbox WHERE id = '" + id
                + "'; COMMIT;");
        List<String> later = insert(5, 1);
        List<String> expected = new ArrayList<>(List.of(id.toString()));
        expected.addAll(later);
        awaitIds(expected);
    }

    @Test
    void slotDroppedWhileStoppedIsRecreatedAndTheRescanPublishesWhatWasWrittenMeanwhile() throws SQLException {
        OutboxSource first = start();
        List<String> ids = new ArrayList<>(insert(50, 3));
        awaitIds(ids);
        await().atMost(WAIT).until(() -> unsent() == 0);
        first.close();
        ids.addAll(insert(40, 3));
        db.execute("SELECT pg_drop_replication_slot('outbox_relay')");
        ids.addAll(insert(30, 3));
        start();
        List<String> more = insert(20, 3);
        ids.addAll(more);
        List<ReadRecord> records = awaitIds(ids);
        assertPerKeyOrder(records, ids);
        assertThat(db.queryLong("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'outbox_relay'"))
                .isEqualTo(1);
    }

    @Test
    void restartResumesFromStoredOffsetsWithoutRepublishing() throws SQLException {
        OutboxSource first = start();
        List<String> ids = new ArrayList<>(insert(100, 5));
        awaitIds(ids);
        await().atMost(WAIT).until(() -> unsent() == 0);
        first.close();
        ids.addAll(insert(100, 5));
        start();
        List<ReadRecord> records = awaitIds(ids);
        assertThat(records).hasSize(200);
        assertPerKeyOrder(records, ids);
    }

    @Test
    void stoppedWhileItStartsItLogsNoErrorAndTheNextStartPublishes() throws Exception {
        List<String> ids = insert(20, 2);
        CapturedLogs logs = CapturedLogs.all();
        try (logs) {
            // A stop at different points of the start: before, while and after Debezium initializes and begins to poll.
            for (int delayMs : new int[] {0, 50, 100, 200, 300, 400, 600, 900}) {
                OutboxSource source = create(b -> { });
                source.start();
                Pacing.pause(delayMs); // the point of the start at which it is stopped
                // A liveness bound, not a speed target: a close that raced Debezium's start hung for 60 s.
                assertTimeout(Duration.ofSeconds(30), source::close, "close() after " + delayMs + " ms");
            }
        }
        assertThat(logs.events()).filteredOn(e -> e.getLevel() == Level.ERROR)
                .extracting(e -> e.getLoggerName() + ": " + e.getFormattedMessage()).isEmpty();
        start();
        awaitIds(ids);
        await().atMost(WAIT).until(() -> unsent() == 0);
    }

    @Test
    void fileOffsetStoreWorksToo(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws SQLException {
        java.nio.file.Path file = dir.resolve("offsets.dat");
        OutboxSource first = start(b -> b.offsetStore(CdcSettings.OffsetStore.FILE).offsetFile(file));
        List<String> ids = new ArrayList<>(insert(30, 2));
        awaitIds(ids);
        first.close();
        assertThat(file).exists();
        ids.addAll(insert(30, 2));
        start(b -> b.offsetStore(CdcSettings.OffsetStore.FILE).offsetFile(file));
        assertThat(awaitIds(ids)).hasSize(60);
    }

    @Test
    void idleDatabaseHeartbeatsMoveTheSlotsConfirmedPosition() throws SQLException {
        start();
        awaitIds(insert(1, 1));
        String confirmed = db.queryString("SELECT confirmed_flush_lsn FROM pg_replication_slots"
                + " WHERE slot_name = 'outbox_relay'");
        // WAL written by others: the outbox stays idle, yet the slot must not hold this WAL back.
        db.execute("CREATE TABLE noise (x int); INSERT INTO noise SELECT generate_series(1, 10000)");
        await().atMost(WAIT).until(() -> db.queryLong("SELECT pg_wal_lsn_diff(confirmed_flush_lsn, '" + confirmed
                + "') FROM pg_replication_slots WHERE slot_name = 'outbox_relay'") > 0);
        try (Connection c = db.connect()) {
            assertThat(CdcSource.retainedWalBytes(c, "outbox_relay")).isPresent();
            assertThat(CdcSource.retainedWalBytes(c, "no_such_slot")).isEmpty();
        }
    }

    @Test
    void kafkaOutageBlocksWithoutLossAndResumesAlone() throws SQLException {
        start();
        List<String> ids = new ArrayList<>(insert(20, 2));
        awaitIds(ids);
        kafka.stop();
        try {
            ids.addAll(insert(100, 4));
            await().pollDelay(Duration.ofSeconds(3)).atMost(WAIT).until(() -> true);
            assertThat(unsent()).isEqualTo(100);
        } finally {
            kafka.restart();
        }
        ids.addAll(insert(50, 4));
        List<ReadRecord> records = awaitIds(ids);
        assertPerKeyOrder(records, ids);
        await().atMost(WAIT).until(() -> unsent() == 0);
    }

    @Test
    void killedWalsenderIsReconnected() throws SQLException {
        start();
        List<String> ids = new ArrayList<>(insert(20, 2));
        awaitIds(ids);
        db.execute("SELECT pg_terminate_backend(active_pid) FROM pg_replication_slots WHERE slot_name = 'outbox_relay'");
        ids.addAll(insert(50, 2));
        await().atMost(WAIT).until(() -> db.queryLong("SELECT count(*) FROM pg_replication_slots"
                + " WHERE slot_name = 'outbox_relay' AND active") == 1);
        ids.addAll(insert(50, 2));
        assertPerKeyOrder(awaitIds(ids), ids);
    }

    @Test
    void malformedRowIsDeadLetteredWithItsReasonAndOthersFlow() throws SQLException {
        start();
        UUID bad = UUID.randomUUID();
        db.execute("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload, headers) VALUES ('"
                + bad + "', '" + aggregateType + "', 'k', 'created', '{}', '[1, 2]')");
        List<String> good = insert(10, 1);
        List<ReadRecord> records = awaitIds(good);
        assertThat(records).noneMatch(r -> r.id().equals(bad.toString()));
        await().atMost(WAIT).until(() -> db.queryLong("SELECT count(*) FROM outbox WHERE id = '" + bad
                + "' AND dead_lettered_at IS NOT NULL AND attempts = 3") == 1);
        assertThat(db.queryString("SELECT last_error FROM outbox WHERE id = '" + bad + "'"))
                .contains("headers column must be a JSON object");
    }

    @Test
    void roleWithoutReplicationGetsAnErrorNamingThePrivilege() throws SQLException {
        db.execute("CREATE ROLE norepl LOGIN PASSWORD 'pw'; GRANT ALL ON ALL TABLES IN SCHEMA public TO norepl");
        CdcSettings settings = CdcSettings.builder(db.jdbcUrl(), "norepl", "pw").build();
        OutboxSource source = CdcSource.create(settings, EventRouter.topicTemplate("cdc.x"),
                EventPublisher.kafka(ProducerSettings.of(kafka.bootstrapServers(), Map.of())), RelayListener.none());
        try {
            assertThatThrownBy(source::start).isInstanceOf(CdcSetupException.class)
                    .hasMessage("role 'norepl' lacks the REPLICATION attribute that CDC mode needs to read the"
                            + " write-ahead log: run ALTER ROLE \"norepl\" REPLICATION as a superuser, or use --mode poll");
        } finally {
            source.close();
            db.execute("DROP OWNED BY norepl; DROP ROLE norepl");
        }
    }

    @Test
    void roleThatCannotMarkRowsSentIsRefusedBeforePublishing() throws SQLException {
        db.execute("CREATE ROLE nomark LOGIN REPLICATION PASSWORD 'pw'; GRANT ALL ON ALL TABLES IN SCHEMA public TO"
                + " nomark; REVOKE UPDATE ON outbox FROM nomark");
        CdcSettings settings = CdcSettings.builder(db.jdbcUrl(), "nomark", "pw").build();
        OutboxSource source = CdcSource.create(settings, EventRouter.topicTemplate("cdc.x"),
                EventPublisher.kafka(ProducerSettings.of(kafka.bootstrapServers(), Map.of())), RelayListener.none());
        try {
            assertThatThrownBy(source::start).isInstanceOf(CdcSetupException.class)
                    .hasMessage("role 'nomark' lacks UPDATE on public.outbox, which CDC mode needs to rescan, mark and"
                            + " dead-letter rows: GRANT UPDATE ON \"public\".\"outbox\" TO \"nomark\"");
            assertThat(db.queryLong("SELECT count(*) FROM pg_replication_slots WHERE database = current_database()"))
                    .as("nothing created").isZero();
        } finally {
            source.close();
            db.execute("DROP OWNED BY nomark; DROP ROLE nomark");
        }
    }

    @Test
    void missingPublicationNeedsTableOwnership() {
        db.execute("DROP PUBLICATION outbox_relay_pub");
        CdcSettings settings = CdcSettings.builder(db.jdbcUrl(), db.relayUser(), db.relayPassword()).build();
        OutboxSource source = CdcSource.create(settings, EventRouter.topicTemplate("cdc.x"),
                EventPublisher.kafka(ProducerSettings.of(kafka.bootstrapServers(), Map.of())), RelayListener.none());
        try {
            assertThatThrownBy(source::start).isInstanceOf(CdcSetupException.class)
                    .hasMessageStartingWith("publication 'outbox_relay_pub' does not exist and role '"
                            + db.relayUser() + "' cannot create it: creating a publication needs the CREATE"
                            + " privilege on the database and ownership of table public.outbox");
        } finally {
            source.close();
        }
    }

    @Test
    void streamsFiftyThousandEventsWithoutLossAndReportsThroughput() {
        start();
        db.execute("CREATE TABLE ids AS SELECT gen_random_uuid() AS id, g FROM generate_series(1, 50000) g");
        long t0 = System.nanoTime();
        for (int from = 1; from <= 50000; from += 5000) {
            db.execute("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload)"
                    + " SELECT id, '" + aggregateType + "', 'key-' || (g % 100), 'created', jsonb_build_object('n', g)"
                    + " FROM ids WHERE g BETWEEN " + from + " AND " + (from + 4999) + " ORDER BY g");
        }
        await().atMost(Duration.ofMinutes(5)).until(() -> unsent() == 0);
        double seconds = (System.nanoTime() - t0) / 1e9;
        org.slf4j.LoggerFactory.getLogger(CdcSourceIT.class).info("CDC relayed 50000 events in {} s ({} ev/s)",
                String.format("%.1f", seconds), Math.round(50000 / seconds));
        List<String> ids = new ArrayList<>();
        try (Connection c = db.connect(); var st = c.createStatement();
             var rs = st.executeQuery("SELECT id FROM ids ORDER BY g")) {
            while (rs.next()) {
                ids.add(rs.getString(1));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        assertPerKeyOrder(awaitIds(ids), ids);
    }
}
