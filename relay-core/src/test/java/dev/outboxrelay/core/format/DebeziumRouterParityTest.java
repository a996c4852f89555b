package dev.outboxrelay.core.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.format.RouterSettings.Field;
import dev.outboxrelay.schema.TableLayout;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.debezium.data.Envelope;
import io.debezium.transforms.outbox.EventRouter;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.errors.DataException;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.source.SourceRecord;
import org.apache.kafka.connect.storage.Converter;
import org.apache.kafka.connect.storage.SimpleHeaderConverter;
import org.apache.kafka.connect.storage.StringConverter;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The Debezium format against Debezium's own Outbox Event Router and Kafka's converters, as a Connect worker runs
 * them, for a corpus of payloads chosen for the router's corner cases (what it expands, what it leaves a string,
 * field order of merged array elements, numbers, text). Key, value and headers must be equal byte for byte.
 * {@code DebeziumRouterParityIT} does the same through real PostgreSQL, Debezium's connector and Kafka.
 */
class DebeziumRouterParityTest {

    static final List<String> PAYLOADS = List.of(
            "{\"total\": 12.5, \"items\": [{\"sku\": \"a\", \"qty\": 1}, {\"sku\": \"b\", \"qty\": 2, \"gift\": true}],"
                    + " \"note\": null, \"tags\": []}",
            "{\"a\": {\"b\": {\"c\": [1, 2, 3], \"d\": \"x\"}}, \"e\": false}",
            "{\"name\": \"Zoë ✓ 😀\", \"quote\": \"he said \\\"hi\\\"\\n\\ttab\", \"slash\": \"a/b\\\\c\"}",
            "{\"big\": 12345678901234567890}",
            "{\"long\": 9007199254740993, \"int\": 7, \"neg\": -2147483649}",
            "{\"mixed\": [1, 3000000000]}",
            "{\"floats\": [1.0, 0.1, 1e-7, 1.50, -0.0, 123456789.123456789]}",
            "{\"f\": 0.0000001, \"g\": 1E+20, \"h\": 3.4028235E38}",
            "[1, 2, 3]",
            "[{\"a\": 1}]",
            "\"just a string\"",
            "42",
            "{}",
            "{\"nulls\": [null, null]}",
            "{\"some\": [null, 1, 2]}",
            "{\"objs\": [{\"a\": 1}, {\"b\": \"x\"}, {\"c\": true, \"a\": 2}, {\"d\": [1]}, {\"a\": 3, \"e\": null}]}",
            "{\"kinds\": [1, \"x\"]}",
            "{\"matrix\": [[1, 2], [3]], \"empties\": [[], [1]]}",
            "{\"deep\": [{\"x\": [{\"y\": 1}, {\"z\": 2}]}]}",
            "{\"same\": 1, \"Same\": 2, \"with space\": 3, \"1digit\": 4, \"dot.ted\": 5}",
            "  {\"lead\": \"space\"}",
            "");

    /** Payloads whose expansion fails in the router after it inferred a schema: no record in Debezium. */
    static final List<String> ROUTER_FAILS = List.of("{\"big\": 12345678901234567890}", "[1, 2, 3]", "[{\"a\": 1}]");

    private static final ObjectMapper JSON = new ObjectMapper();

    enum Setup {
        EXPANDED_STRING_KEY(RouterSettings.Value.JSON_EXPANDED, RouterSettings.Key.STRING, "", false),
        JSON_STRING_JSON_KEY(RouterSettings.Value.JSON, RouterSettings.Key.JSON, "", false),
        STRING_VALUE_WITH_HEADERS(RouterSettings.Value.STRING, RouterSettings.Key.STRING,
                "event_type:header:eventType,aggregate_type:header", false),
        EXPANDED_ENVELOPE(RouterSettings.Value.JSON_EXPANDED, RouterSettings.Key.STRING,
                "event_type:envelope:type,aggregate_id:header:key,id:envelope", false),
        EXPANDED_TOMBSTONES(RouterSettings.Value.JSON_EXPANDED, RouterSettings.Key.JSON,
                "event_type:envelope:type", true),
        OTHER_COLUMNS(RouterSettings.Value.JSON_EXPANDED, RouterSettings.Key.STRING,
                "tenant:header:tenantId,version:envelope,tenant:envelope,version:header,shard:envelope", false);

        final RouterSettings settings;
        final String placement;

        Setup(RouterSettings.Value value, RouterSettings.Key key, String fields, boolean tombstone) {
            this.settings = new RouterSettings(value, key, Field.parseList(fields), tombstone);
            this.placement = fields;
        }
    }

    @ParameterizedTest
    @EnumSource(Setup.class)
    void writesWhatTheRouterAndConvertersWrite(Setup setup) throws Exception {
        MessageFormat relay = MessageFormat.debeziumRouter(setup.settings,
                TableLayout.RELAY.withExtras(List.of("tenant", "version", "shard")));
        try (Connect connect = new Connect(setup)) {
            List<String> payloads = new ArrayList<>(PAYLOADS);
            payloads.add(null);
            int n = 0;
            for (String payload : payloads) {
                Map<String, Object> columns = new HashMap<>();
                columns.put("tenant", n % 3 == 0 ? null : "t-" + n);
                columns.put("version", n);
                columns.put("shard", (long) n * 3_000_000_000L);
                OutboxEvent event = new OutboxEvent(UUID.randomUUID(), "Order", "order-" + n++, "OrderPlaced",
                        payload, Map.of(), Instant.parse("2026-12-05T10:15:30.123456Z"), null, columns);
                ProducerRecord<byte[], byte[]> ours = relay.record("outbox.event.Order", event);
                String what = setup + " payload " + payload;
                Written theirs;
                try {
                    theirs = connect.write(event);
                } catch (DataException e) {
                    // The router set the inferred schema before the data failed it: the converter refuses the record
                    // and the Connect task stops. The relay publishes the payload as a JSON string instead.
                    assertThat(ROUTER_FAILS).as(what + " fails in Debezium: " + e.getMessage()).contains(payload);
                    assertThat(text(ours.value())).as(what).contains(JSON.writeValueAsString(payload));
                    continue;
                }
                if (setup.settings.value() == RouterSettings.Value.JSON_EXPANDED) {
                    assertThat(ROUTER_FAILS).as(what + " passes in Debezium").doesNotContain(payload);
                }
                assertThat(theirs.topic).as(what).isEqualTo("outbox.event.Order");
                assertThat(text(ours.key())).as("key, " + what).isEqualTo(text(theirs.key));
                assertThat(text(ours.value())).as("value, " + what).isEqualTo(text(theirs.value));
                assertThat(ours.value()).as("value bytes, " + what).isEqualTo(theirs.value);
                assertThat(headers(ours.headers())).as("headers, " + what).isEqualTo(theirs.headers);
            }
        }
    }

    private static List<String> headers(Iterable<Header> headers) {
        List<String> out = new ArrayList<>();
        headers.forEach(h -> out.add(h.key() + "=" + text(h.value())));
        return out;
    }

    private static String text(byte[] b) {
        return b == null ? null : new String(b, StandardCharsets.UTF_8);
    }

    private record Written(String topic, byte[] key, byte[] value, List<String> headers) {
    }

    /** Debezium's router and the converters of a Connect worker, on the change event Debezium makes of a row. */
    private static final class Connect implements AutoCloseable {

        private static final Schema ROW = SchemaBuilder.struct().name("relay.public.outbox.Value")
                .field("id", SchemaBuilder.string().name("io.debezium.data.Uuid").version(1).build())
                .field("aggregate_type", Schema.STRING_SCHEMA)
                .field("aggregate_id", Schema.STRING_SCHEMA)
                .field("event_type", Schema.STRING_SCHEMA)
                .field("payload", SchemaBuilder.string().name("io.debezium.data.Json").version(1).optional().build())
                .field("headers", SchemaBuilder.string().name("io.debezium.data.Json").version(1).optional().build())
                .field("tenant", Schema.OPTIONAL_STRING_SCHEMA)
                .field("version", Schema.INT32_SCHEMA)
                .field("shard", Schema.OPTIONAL_INT64_SCHEMA)
                .build();
        private static final Schema SOURCE = SchemaBuilder.struct().name("io.debezium.connector.postgresql.Source")
                .field("connector", Schema.STRING_SCHEMA).field("ts_ms", Schema.INT64_SCHEMA).build();
        private static final Envelope ENVELOPE = Envelope.defineSchema().withName("relay.public.outbox.Envelope")
                .withRecord(ROW).withSource(SOURCE).build();

        private final EventRouter<SourceRecord> router = new EventRouter<>();
        private final Converter key;
        private final Converter value;
        private final SimpleHeaderConverter header = new SimpleHeaderConverter();

        Connect(Setup setup) {
            Map<String, String> config = new HashMap<>();
            config.put("table.field.event.id", "id");
            config.put("table.field.event.key", "aggregate_id");
            config.put("table.field.event.payload", "payload");
            config.put("route.by.field", "aggregate_type");
            config.put("table.expand.json.payload",
                    String.valueOf(setup.settings.value() == RouterSettings.Value.JSON_EXPANDED));
            config.put("route.tombstone.on.empty.payload", String.valueOf(setup.settings.tombstoneOnEmpty()));
            if (!setup.placement.isEmpty()) {
                config.put("table.fields.additional.placement", setup.placement);
            }
            router.configure(config);
            key = setup.settings.key() == RouterSettings.Key.STRING ? new StringConverter() : new JsonConverter();
            key.configure(Map.of("schemas.enable", "false"), true);
            value = setup.settings.value() == RouterSettings.Value.STRING ? new StringConverter() : new JsonConverter();
            value.configure(Map.of("schemas.enable", "false"), false);
            header.configure(Map.of());
        }

        Written write(OutboxEvent event) {
            Struct row = new Struct(ROW).put("id", event.id().toString()).put("aggregate_type", event.aggregateType())
                    .put("aggregate_id", event.aggregateId()).put("event_type", event.eventType())
                    .put("payload", event.payload()).put("tenant", event.columns().get("tenant"))
                    .put("version", event.columns().get("version")).put("shard", event.columns().get("shard"));
            Struct source = new Struct(SOURCE).put("connector", "postgresql").put("ts_ms", 1L);
            Struct change = ENVELOPE.create(row, source, Instant.now());
            SourceRecord in = new SourceRecord(Map.of(), Map.of(), "relay.public.outbox", null, null, null,
                    ENVELOPE.schema(), change);
            SourceRecord out = router.apply(in);
            List<String> headers = new ArrayList<>();
            out.headers().forEach(h -> headers.add(h.key() + "="
                    + text(header.fromConnectHeader(out.topic(), h.key(), h.schema(), h.value()))));
            return new Written(out.topic(), key.fromConnectData(out.topic(), out.keySchema(), out.key()),
                    value.fromConnectData(out.topic(), out.valueSchema(), out.value()), headers);
        }

        @Override
        public void close() {
            router.close();
        }
    }
}
