package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.schema.TableLayout;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import java.sql.Array;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The publication's column list (PostgreSQL 15+): {@code migrate} and the relay limit it to the columns the relay
 * reads, a list without one of them is refused before anything streams, and a publication of every column (a
 * schema before version 5) still relays complete events.
 */
class PublicationColumnsIT {

    private static final Duration WAIT = Duration.ofSeconds(90);

    private TestDatabase db;
    private TestKafka kafka;
    private String aggregateType;
    private OutboxSource source;

    @BeforeEach
    void setUp() throws SQLException {
        db = TestPostgres.shared().createDatabase("cdcpub");
        kafka = TestKafka.shared();
        aggregateType = "pub" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection c = db.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        db.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + db.relayUser());
    }

    @AfterEach
    void tearDown() {
        if (source != null) {
            source.close();
        }
        db.drop();
    }

    private List<String> publishedColumns() throws SQLException {
        try (Connection c = db.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT attnames FROM pg_publication_tables"
                     + " WHERE pubname = 'outbox_relay_pub' AND tablename = 'outbox'")) {
            assertThat(rs.next()).as("the publication includes the outbox table").isTrue();
            Array names = rs.getArray(1);
            return List.of((String[]) names.getArray());
        }
    }

    private OutboxSource source(String user, String password) {
        source = source(db, kafka, user, password);
        return source;
    }

    private ReadRecord relayOneEvent(String user, String password) {
        return relayOneEvent(source(user, password), db, kafka, aggregateType);
    }

    /** A CDC source on {@code db} as {@code user}, not started. */
    static OutboxSource source(TestDatabase db, TestKafka kafka, String user, String password) {
        CdcSettings settings = CdcSettings.builder(db.jdbcUrl(), user, password)
                .heartbeatInterval(Duration.ofSeconds(1)).build();
        return CdcSource.create(settings, EventRouter.topicTemplate("cdc.${aggregateType}"),
                EventPublisher.kafka(ProducerSettings.of(kafka.bootstrapServers(), Map.of())), RelayListener.none());
    }

    /** Starts {@code relay}, writes one event with a payload and a custom header, and returns what a consumer reads. */
    static ReadRecord relayOneEvent(OutboxSource relay, TestDatabase db, TestKafka kafka, String aggregateType) {
        relay.start();
        await().atMost(WAIT).until(relay::isHealthy);
        String id = UUID.randomUUID().toString();
        db.execute("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload, headers) VALUES ('"
                + id + "', '" + aggregateType + "', 'order-1', 'created', '{\"total\": 42}',"
                + " '{\"traceparent\": \"00-abc-def-01\"}')");
        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds("cdc." + aggregateType, Set.of(id), WAIT);
        assertThat(records).hasSize(1);
        return records.get(0);
    }

    static void assertComplete(ReadRecord r) {
        assertThat(r.key()).isEqualTo("order-1");
        assertThat(r.value()).isEqualTo("{\"total\": 42}");
        assertThat(r.headers()).containsEntry("type", "created").containsEntry("traceparent", "00-abc-def-01");
    }

    @Test
    void migrateLimitsThePublicationToTheColumnsTheRelayReads() throws SQLException {
        assertThat(publishedColumns()).containsExactlyInAnyOrderElementsOf(ChangeHandler.columns(TableLayout.RELAY));
        assertComplete(relayOneEvent(db.relayUser(), db.relayPassword()));
    }

    @Test
    void migrationFiveLeavesAPublicationWithoutTheTableAlone() {
        String v5 = OutboxSchema.plan(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrations().get(4).sql();
        db.execute("DROP PUBLICATION outbox_relay_pub");
        db.execute(v5);
        assertThat(db.queryLong("SELECT count(*) FROM pg_publication WHERE pubname = 'outbox_relay_pub'")).isZero();
        db.execute("CREATE TABLE other (id int); CREATE PUBLICATION outbox_relay_pub FOR TABLE other");
        db.execute(v5);
        assertThat(db.queryString("SELECT string_agg(tablename, ',') FROM pg_publication_tables"
                + " WHERE pubname = 'outbox_relay_pub'")).isEqualTo("other");
    }

    @Test
    void publicationTheRelayCreatesListsTheColumnsItReads() throws SQLException {
        db.execute("DROP PUBLICATION outbox_relay_pub");
        assertComplete(relayOneEvent(db.superUser(), db.superPassword()));
        assertThat(publishedColumns()).containsExactlyInAnyOrderElementsOf(ChangeHandler.columns(TableLayout.RELAY));
    }

    @Test
    void publicationOfEveryColumnStillRelaysCompleteEvents() throws SQLException {
        db.execute("ALTER PUBLICATION outbox_relay_pub DROP TABLE outbox;"
                + " ALTER PUBLICATION outbox_relay_pub ADD TABLE outbox");
        assertThat(publishedColumns()).contains("created_at", "seq", "sent_at");
        assertComplete(relayOneEvent(db.relayUser(), db.relayPassword()));
    }

    @Test
    void migrationFiveWhileTheRelayStreamsLosesNothing() throws SQLException {
        db.execute("ALTER PUBLICATION outbox_relay_pub DROP TABLE outbox;"
                + " ALTER PUBLICATION outbox_relay_pub ADD TABLE outbox");
        assertComplete(relayOneEvent(db.relayUser(), db.relayPassword()));
        String v5 = OutboxSchema.plan(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrations().get(4).sql();
        // A transaction that inserted before the publication changed and commits after it.
        try (Connection open = db.connect()) {
            open.setAutoCommit(false);
            try (Statement st = open.createStatement()) {
                st.execute(insertSql(0, 50));
                db.execute(insertSql(50, 100));
                db.execute(v5);
                db.execute(insertSql(100, 150));
            }
            open.commit();
        }
        db.execute(insertSql(150, 200));
        assertThat(publishedColumns()).containsExactlyInAnyOrderElementsOf(ChangeHandler.columns(TableLayout.RELAY));
        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds("cdc." + aggregateType, ids(0, 200), WAIT);
        assertThat(records).filteredOn(r -> r.id().startsWith("00000000-0000-4000-8000-")).hasSize(200)
                .allSatisfy(r -> {
                    assertThat(r.value()).startsWith("{\"n\": ");
                    assertThat(r.headers()).containsEntry("traceparent", "00-abc-def-01");
                });
    }

    private String insertSql(int from, int to) {
        return "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload, headers)"
                + " SELECT ('00000000-0000-4000-8000-' || lpad(g::text, 12, '0'))::uuid, '" + aggregateType + "',"
                + " 'order-' || (g % 7), 'created', jsonb_build_object('n', g), '{\"traceparent\": \"00-abc-def-01\"}'"
                + " FROM generate_series(" + from + ", " + (to - 1) + ") g";
    }

    private static Set<String> ids(int from, int to) {
        Set<String> ids = new java.util.HashSet<>();
        for (int g = from; g < to; g++) {
            ids.add(String.format("00000000-0000-4000-8000-%012d", g));
        }
        return ids;
    }

    @Test
    void publicationWithoutAColumnTheRelayReadsIsRefused() {
        db.execute("ALTER PUBLICATION outbox_relay_pub DROP TABLE outbox; ALTER PUBLICATION outbox_relay_pub"
                + " ADD TABLE outbox (id, aggregate_type, aggregate_id, event_type, created_at)");
        OutboxSource relay = source(db.relayUser(), db.relayPassword());
        assertThatThrownBy(relay::start).isInstanceOf(CdcSetupException.class)
                .hasMessage("publication 'outbox_relay_pub' does not publish columns payload, headers of table"
                        + " public.outbox, which the relay reads: run `migrate`, or as the table owner: ALTER"
                        + " PUBLICATION \"outbox_relay_pub\" DROP TABLE \"public\".\"outbox\"; ALTER PUBLICATION"
                        + " \"outbox_relay_pub\" ADD TABLE \"public\".\"outbox\" (id, aggregate_type, aggregate_id,"
                        + " event_type, payload, headers)");
    }
}
