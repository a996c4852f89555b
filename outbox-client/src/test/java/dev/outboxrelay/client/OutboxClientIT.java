package dev.outboxrelay.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.FactoryRelays;
import dev.outboxrelay.testkit.contract.RelayEnvironment;
import dev.outboxrelay.testkit.contract.RelayHandle;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;
import io.opentelemetry.api.trace.TraceFlags;
import io.opentelemetry.api.trace.TraceState;
import io.opentelemetry.context.Scope;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The writer on a real PostgreSQL, and its events relayed by both sources to a real broker. */
class OutboxClientIT {

    private static final String TRACEPARENT = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";

    private final Outbox outbox = Outbox.forTable("public.outbox");
    private TestDatabase database;

    @BeforeEach
    void setUp() throws Exception {
        database = TestPostgres.shared().createDatabase("client");
        try (Connection c = database.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        database.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + database.relayUser());
    }

    @AfterEach
    void tearDown() {
        database.drop();
    }

    @Test
    void eventsExistOnlyIfTheTransactionCommitsAndCarryTheirIdsHeadersAndTrace() throws Exception {
        try (Connection c = database.connect()) {
            c.setAutoCommit(false);
            outbox.append(c, Event.builder("Order", "o-1", "OrderPaid").payload("{\"n\": 1}").build());
            c.rollback();
            assertThat(count(c)).as("rolled back with the business change").isZero();

            UUID paid;
            List<UUID> more;
            SpanContext span = SpanContext.create("4bf92f3577b34da6a3ce929d0e0e4736", "00f067aa0ba902b7",
                    TraceFlags.getSampled(), TraceState.getDefault());
            try (Scope ignored = Span.wrap(span).makeCurrent()) {
                paid = outbox.append(c, Event.builder("Order", "o-1", "OrderPaid").payload("{\"n\": 1}")
                        .header("correlation", "c-9").build());
                more = outbox.appendAll(c, List.of(
                        Event.builder("Order", "o-1", "OrderShipped").payload("{\"n\": 2}").build(),
                        Event.builder("Order", "o-2", "OrderDeleted").header("traceparent", "mine").build()));
            }
            c.commit();
            assertThat(paid.version()).isEqualTo(7);
            assertThat(more).hasSize(2).allMatch(id -> id.version() == 7);
            try (PreparedStatement ps = c.prepareStatement("SELECT id, event_type, payload::text, headers::text"
                    + " FROM outbox ORDER BY seq"); ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertThat(rs.getObject(1, UUID.class)).isEqualTo(paid);
                assertThat(rs.getString(4)).as("jsonb's key order").isEqualTo("{\"correlation\": \"c-9\","
                        + " \"traceparent\": \"" + TRACEPARENT + "\"}");
                rs.next();
                assertThat(rs.getObject(1, UUID.class)).isEqualTo(more.get(0));
                rs.next();
                assertThat(rs.getString(3)).as("no payload").isNull();
                assertThat(rs.getString(4)).as("its own traceparent wins").isEqualTo("{\"traceparent\": \"mine\"}");
            }
            c.commit();
        }
    }

    @Test
    void anIdAlreadyInTheTableIsNotWrittenAgainAndAutoCommitIsRefused() throws Exception {
        UUID key = UUID.randomUUID();
        try (Connection c = database.connect()) {
            c.setAutoCommit(false);
            Event once = Event.builder("Order", "o-1", "OrderPaid").id(key).payload("{}").build();
            assertThat(outbox.append(c, once)).isEqualTo(key);
            c.commit();
            assertThat(outbox.append(c, once)).as("a retried operation with the same key").isEqualTo(key);
            c.commit();
            assertThat(count(c)).isEqualTo(1);
            c.commit();

            c.setAutoCommit(true);
            assertThatThrownBy(() -> outbox.append(c, once)).isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("the connection is in auto-commit mode: the event would be committed on"
                            + " its own, not with your transaction");
            c.setAutoCommit(false);
            assertThatThrownBy(() -> outbox.append(c, Event.builder("Order", "o-1", "X").payload("not json")
                    .build())).hasMessageContaining("invalid input syntax for type json");
            c.rollback();
        }
    }

    @ParameterizedTest(name = "--mode {0}")
    @ValueSource(strings = {"poll", "cdc"})
    void theWritersEventsAreRelayedInOrder(String mode) throws Exception {
        relayedInOrder(mode, outbox, "public.outbox", Map.of(), 10);
    }

    @ParameterizedTest(name = "--mode {0}")
    @ValueSource(strings = {"poll", "cdc"})
    void onAnAdoptedDebeziumTableTheWritersEventsAreRelayedInOrder(String mode) throws Exception {
        database.execute("CREATE TABLE public.outboxevent (id uuid PRIMARY KEY, aggregatetype varchar(255) NOT NULL,"
                + " aggregateid varchar(255) NOT NULL, type varchar(255) NOT NULL, payload text)");
        try (Connection c = database.connect()) {
            dev.outboxrelay.schema.Migrator.forPlan(OutboxSchema.adoptionPlan(OutboxTable.parse("public.outboxevent")
                    .withLayout(dev.outboxrelay.schema.TableLayout.DEBEZIUM), "outboxevent_pub")).migrate(c);
        }
        database.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + database.relayUser());
        Outbox debezium = Outbox.forTable("public.outboxevent", Columns.debezium());
        try (Connection c = database.connect()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> debezium.append(c, Event.builder("Order", "o-1", "Happened")
                    .header("tenant", "t-1").build()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("table public.outboxevent has no headers column: event headers [tenant] cannot be"
                            + " written");
            c.rollback();
        }
        List<ReadRecord> records = relayedInOrder(mode, debezium, "public.outboxevent",
                mode.equals("cdc") ? Map.of("table-format", "debezium", "publication", "outboxevent_pub")
                        : Map.of("table-format", "debezium"), 5);
        assertThat(records.get(0).value()).as("a text payload column, relayed as written").startsWith("{\"tx\": ");
    }

    /**
     * Starts the relay of {@code mode} on {@code table} (with {@code extraFlags}), writes {@code transactions} of
     * 20 events over 5 keys with {@code writer}, and checks they reach the topic in per-key order; returns them.
     */
    private List<ReadRecord> relayedInOrder(String mode, Outbox writer, String table, Map<String, String> extraFlags,
                                            int transactions) throws Exception {
        TestKafka kafka = TestKafka.shared();
        String topic = "client-" + mode + "-" + table.replace('.', '-') + "." + database.name();
        kafka.createTopic(topic, 3);
        Map<String, String> flags = new java.util.HashMap<>(extraFlags);
        flags.put("topic-template", topic);
        flags.putAll(mode.equals("cdc")
                ? Map.of("slot-name", ("s_" + database.name()).toLowerCase(Locale.ROOT), "heartbeat-interval", "1s")
                : Map.of("poll-interval", "200ms"));
        List<String> ids = new ArrayList<>();
        try (RelayHandle relay = FactoryRelays.start(mode, new RelayEnvironment(database, table, kafka), flags)) {
            for (int tx = 0; tx < transactions; tx++) {
                try (Connection c = database.connect()) {
                    c.setAutoCommit(false);
                    List<Event> events = new ArrayList<>();
                    for (int i = 0; i < 20; i++) {
                        events.add(Event.builder("Order", "o-" + (i % 5), "Happened")
                                .payload("{\"tx\": " + tx + ", \"i\": " + i + "}").build());
                    }
                    writer.appendAll(c, events).forEach(id -> ids.add(id.toString()));
                    c.commit();
                }
            }
            List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(topic, new HashSet<>(ids),
                    Duration.ofSeconds(90));
            DeliveryReport report = DeliveryReport.of(records, ids);
            assertThat(report.atLeastOnceInOrder()).as("%s", report).isTrue();
            return records;
        }
    }

    private static long count(Connection c) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("SELECT count(*) FROM outbox");
             ResultSet rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
