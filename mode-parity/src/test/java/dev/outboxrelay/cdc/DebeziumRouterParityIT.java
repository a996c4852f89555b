package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.format.MessageFormat;
import dev.outboxrelay.core.format.RouterSettings;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.schema.TableLayout;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import io.debezium.embedded.Connect;
import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;
import org.apache.kafka.connect.storage.StringConverter;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The same rows through the relay ({@code --message-format debezium}) and through Debezium's own pipeline (its
 * PostgreSQL connector, the Outbox Event Router and Kafka's converters, as a Connect worker runs them), both onto a
 * real broker: key, value and headers of every record equal, byte for byte. Poll and CDC, each with another of the
 * common settings.
 */
class DebeziumRouterParityIT {

    /** Payloads for the router's corner cases (DebeziumRouterParityTest has more, and the ones Debezium fails on). */
    private static final List<String> PAYLOADS = List.of(
            "{\"total\": 12.5, \"items\": [{\"sku\": \"a\", \"qty\": 1}, {\"sku\": \"b\", \"qty\": 2, \"gift\": true}],"
                    + " \"note\": null, \"tags\": []}",
            "{\"name\": \"Zoë ✓ 😀\", \"quote\": \"he said \\\"hi\\\"\\n\"}",
            "{\"floats\": [1.0, 0.1, 1e-7, 1.50, 123456789.123456789], \"long\": 9007199254740993}",
            "{\"objs\": [{\"a\": 1}, {\"b\": \"x\"}, {\"c\": true, \"a\": 2}], \"kinds\": [1, \"x\"]}",
            "{\"matrix\": [[1, 2], [3]]}",
            "\"just a string\"",
            "42",
            "{}");

    private static final TableLayout LAYOUT = TableLayout.RELAY.withExtras(List.of("tenant", "version"));

    private TestDatabase db;
    private TestKafka kafka;
    private String prefix;
    private final List<AutoCloseable> running = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        db = TestPostgres.shared().createDatabase("parity");
        CdcRelays.migrate(db, "public.outbox");
        // Other columns, placed by the router as headers and envelope fields; the relay's publication sends them.
        db.execute("ALTER TABLE public.outbox ADD COLUMN tenant text, ADD COLUMN version integer");
        db.execute("ALTER PUBLICATION outbox_relay_pub SET TABLE public.outbox (id, aggregate_type, aggregate_id,"
                + " event_type, payload, headers, tenant, version)");
        kafka = TestKafka.shared();
        prefix = "parity-" + UUID.randomUUID().toString().substring(0, 8);
        kafka.createTopic(prefix + ".Order", 1);
        kafka.createTopic("dbz-" + prefix + ".Order", 1);
    }

    @AfterEach
    void tearDown() throws Exception {
        // Last started, first closed: the Debezium engine before the producer its handler sends with. The other
        // way round, a record still being handed over fails on the closed producer, the engine fails and stops by
        // itself, and closing it then throws "Engine is already being shutting down" (a red fresh-clone run).
        for (int i = running.size() - 1; i >= 0; i--) {
            running.get(i).close();
        }
        db.execute("SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '"
                + debeziumSlot() + "' AND NOT active");
        db.drop();
    }

    @ParameterizedTest
    @ValueSource(strings = {"poll", "cdc"})
    void theRelayWritesWhatDebeziumsRouterWrites(String mode) throws Exception {
        RouterSettings settings = mode.equals("poll")
                ? new RouterSettings(RouterSettings.Value.JSON_EXPANDED, RouterSettings.Key.STRING,
                        RouterSettings.Field.parseList("event_type:header:eventType,aggregate_type:header,"
                                + "tenant:header:tenantId,version:header"), false)
                : new RouterSettings(RouterSettings.Value.JSON_EXPANDED, RouterSettings.Key.JSON,
                        RouterSettings.Field.parseList("event_type:envelope:type,id:header:eventId,version:envelope,"
                                + "tenant:envelope"), true);
        startDebezium(settings);
        EventRouter router = EventRouter.topicTemplate(prefix + ".${aggregateType}", null, Set.of(),
                MessageFormat.debeziumRouter(settings, LAYOUT), LAYOUT);
        OutboxSource relay = mode.equals("poll")
                ? PollBesideCdc.startPoll(db, "public.outbox", kafka.bootstrapServers(), router,
                        OutboxTable.parse("public.outbox").withLayout(LAYOUT))
                : CdcRelays.start(CdcRelays.settings(db, "public.outbox", Map.of())
                        .table(OutboxTable.parse("public.outbox").withLayout(LAYOUT)).build(), kafka.bootstrapServers(),
                        router, RelayListener.none());
        running.add(relay::close);
        await().atMost(Duration.ofMinutes(1)).until(relay::isHealthy);

        Set<String> ids = new HashSet<>();
        String nullPayload = null;
        try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement("INSERT INTO outbox"
                + " (id, aggregate_type, aggregate_id, event_type, payload, tenant, version)"
                + " VALUES (?, 'Order', ?, ?, ?::jsonb, ?, ?)")) {
            List<String> payloads = new ArrayList<>(PAYLOADS);
            payloads.add(null);
            int n = 0;
            for (String payload : payloads) {
                UUID id = UUID.randomUUID();
                ps.setObject(1, id);
                ps.setString(2, "order-" + n++);
                ps.setString(3, "OrderPlaced");
                ps.setString(4, payload);
                ps.setString(5, n % 3 == 0 ? null : "tenant-" + n);
                ps.setInt(6, n);
                ps.executeUpdate();
                ids.add(id.toString());
                if (payload == null) {
                    nullPayload = id.toString();
                }
            }
        }

        Map<String, ReadRecord> ours = byId(TopicReader.of(kafka).readUntilIds(prefix + ".Order", ids,
                Duration.ofMinutes(1)));
        Map<String, ReadRecord> theirs = byId(TopicReader.of(kafka).readUntilIds("dbz-" + prefix + ".Order", ids,
                Duration.ofMinutes(1)));
        assertThat(ours.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(theirs.keySet()).containsExactlyInAnyOrderElementsOf(ids);
        for (String id : ids) {
            ReadRecord a = ours.get(id);
            ReadRecord b = theirs.get(id);
            assertThat(a.key()).as("key of %s", b).isEqualTo(b.key());
            assertThat(a.value()).as("value of %s", b).isEqualTo(b.value());
            // Debezium 3 also writes its connector's context (logical name, task, run id: extended.headers.enabled),
            // about the run rather than the event; those are the only headers the relay does not write.
            List<ReadRecord.Header> eventHeaders = b.rawHeaders().stream()
                    .filter(h -> !h.name().startsWith("__debezium.context.")).toList();
            assertThat(b.rawHeaders().size() - eventHeaders.size()).as("context headers in %s", names(b)).isEqualTo(4);
            assertThat(a.rawHeaders()).as("headers of %s: ours %s, Debezium's %s", b, names(a), names(b))
                    .isEqualTo(eventHeaders);
        }
        // A NULL payload: JsonConverter writes JSON null (not a tombstone) unless the router makes it one.
        assertThat(theirs.get(nullPayload).value()).isEqualTo(settings.tombstoneOnEmpty() ? null : "null");
    }

    private static List<String> names(ReadRecord r) {
        return r.rawHeaders().stream().map(h -> h.name() + "=" + h.valueAsString()).toList();
    }

    private static Map<String, ReadRecord> byId(List<ReadRecord> records) {
        Map<String, ReadRecord> out = new LinkedHashMap<>();
        records.forEach(r -> out.putIfAbsent(r.id(), r));
        return out;
    }

    private String debeziumSlot() {
        return "dbz_" + CdcRelays.slotName(db);
    }

    /** Debezium's connector with the outbox router, writing through Kafka's converters as a Connect worker does. */
    private void startDebezium(RouterSettings settings) throws Exception {
        Properties p = new Properties();
        p.put("name", "debezium-parity");
        p.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.put("offset.storage", "org.apache.kafka.connect.storage.MemoryOffsetBackingStore");
        p.put("offset.flush.interval.ms", "0");
        p.put("topic.prefix", "dbz");
        p.put("database.hostname", db.host());
        p.put("database.port", Integer.toString(db.port()));
        p.put("database.user", db.superUser());
        if (db.superPassword() != null) {
            p.put("database.password", db.superPassword());
        }
        p.put("database.dbname", db.name());
        p.put("plugin.name", "pgoutput");
        p.put("slot.name", debeziumSlot());
        p.put("publication.name", "dbz_parity");
        p.put("publication.autocreate.mode", "filtered");
        p.put("table.include.list", "public.outbox");
        p.put("snapshot.mode", "no_data");
        p.put("transforms", "outbox");
        p.put("transforms.outbox.type", "io.debezium.transforms.outbox.EventRouter");
        p.put("transforms.outbox.table.field.event.id", "id");
        p.put("transforms.outbox.table.field.event.key", "aggregate_id");
        p.put("transforms.outbox.table.field.event.payload", "payload");
        p.put("transforms.outbox.route.by.field", "aggregate_type");
        p.put("transforms.outbox.route.topic.replacement", "dbz-" + prefix + ".${routedByValue}");
        p.put("transforms.outbox.table.expand.json.payload",
                String.valueOf(settings.value() == RouterSettings.Value.JSON_EXPANDED));
        p.put("transforms.outbox.route.tombstone.on.empty.payload", String.valueOf(settings.tombstoneOnEmpty()));
        if (!settings.fields().isEmpty()) {
            p.put("transforms.outbox.table.fields.additional.placement",
                    String.join(",", settings.fields().stream().map(Object::toString).toList()));
        }
        Converter key = settings.key() == RouterSettings.Key.STRING ? new StringConverter() : new JsonConverter();
        key.configure(Map.of("schemas.enable", "false"), true);
        Converter value = settings.value() == RouterSettings.Value.STRING ? new StringConverter() : new JsonConverter();
        value.configure(Map.of("schemas.enable", "false"), false);
        SimpleHeaderConverter headers = new SimpleHeaderConverter();
        headers.configure(Map.of());
        Map<String, Object> producerConfig = new HashMap<>(kafka.clientProperties());
        producerConfig.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        producerConfig.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        producerConfig.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class);
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerConfig);
        running.add(producer);

        AtomicReference<Throwable> failure = new AtomicReference<>();
        java.util.concurrent.CountDownLatch polling = new java.util.concurrent.CountDownLatch(1);
        DebeziumEngine<RecordChangeEvent<SourceRecord>> engine = DebeziumEngine.create(ChangeEventFormat.of(Connect.class))
                .using(p)
                .notifying((records, committer) -> {
                    for (RecordChangeEvent<SourceRecord> change : records) {
                        SourceRecord r = change.record();
                        RecordHeaders h = new RecordHeaders();
                        r.headers().forEach(x -> h.add(x.key(),
                                headers.fromConnectHeader(r.topic(), x.key(), x.schema(), x.value())));
                        try {
                            producer.send(new ProducerRecord<>(r.topic(), null,
                                    key.fromConnectData(r.topic(), r.keySchema(), r.key()),
                                    value.fromConnectData(r.topic(), r.valueSchema(), r.value()), h)).get();
                        } catch (java.util.concurrent.ExecutionException e) {
                            throw new IllegalStateException(e.getCause());
                        }
                        committer.markProcessed(change);
                    }
                    committer.markBatchFinished();
                })
                .using(new DebeziumEngine.ConnectorCallback() {
                    @Override
                    public void pollingStarted() {
                        polling.countDown();
                    }
                })
                .using((success, message, error) -> {
                    if (!success) {
                        failure.set(error != null ? error : new IllegalStateException(message));
                    }
                    polling.countDown();
                })
                .build();
        ExecutorService executor = Executors.newSingleThreadExecutor();
        executor.execute(engine);
        running.add(() -> {
            engine.close();
            executor.shutdown();
            executor.awaitTermination(30, TimeUnit.SECONDS);
        });
        assertThat(polling.await(2, TimeUnit.MINUTES)).as("Debezium streaming").isTrue();
        assertThat(failure.get()).as("Debezium failed").isNull();
    }
}
