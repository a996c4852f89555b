package dev.outboxrelay.core.format;

import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.format.RouterSettings.Placement;
import dev.outboxrelay.schema.TableLayout;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.SchemaBuilder;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.json.JsonConverter;

/**
 * {@link MessageFormat#debeziumRouter}: what a Kafka Connect worker writes for an outbox row after Debezium's Outbox
 * Event Router, with Kafka's own converters doing the writing (JsonConverter without schemas, or StringConverter's
 * UTF-8): key = aggregate id, header {@code id}, additional columns as headers or envelope fields, the payload as the
 * value or under {@code payload} in the envelope.
 */
final class DebeziumRouterFormat implements MessageFormat {

    /** The router's envelope field for the payload. */
    static final String ENVELOPE_PAYLOAD = "payload";
    /** The payload column's name, after which the router names the inferred struct. */
    private static final String PAYLOAD_COLUMN = "payload";

    private final RouterSettings settings;
    /** Each field's role, in the order of {@code settings.fields()}; null for another column of the table. */
    private final List<TableLayout.Column> columns;
    private final JsonConverter valueConverter = converter(false);
    private final JsonConverter keyConverter = converter(true);
    private final boolean envelope;

    DebeziumRouterFormat(RouterSettings settings, TableLayout layout) {
        this.settings = settings;
        this.envelope = settings.fields().stream().anyMatch(f -> f.placement() == Placement.ENVELOPE);
        Map<String, TableLayout.Column> placeable = placeable(layout);
        List<TableLayout.Column> cols = new ArrayList<>();
        for (RouterSettings.Field f : settings.fields()) {
            TableLayout.Column c = placeable.get(f.column());
            if (c == null && !layout.extras().contains(f.column())) {
                throw new IllegalArgumentException("column '" + f.column() + "' cannot be an additional field: use "
                        + String.join(", ", placeable.keySet()) + " or another column the relay reads");
            }
            cols.add(c);
        }
        this.columns = java.util.Collections.unmodifiableList(cols); // nulls: List.copyOf refuses them
    }

    @Override
    public ProducerRecord<byte[], byte[]> record(String topic, OutboxEvent event) throws MalformedEventException {
        RecordHeaders headers = new RecordHeaders();
        headers.add(HEADER_ID, RelayFormat.utf8(event.id().toString()));
        for (int i = 0; i < columns.size(); i++) {
            RouterSettings.Field f = settings.fields().get(i);
            if (f.placement() == Placement.HEADER) {
                // Connect's SimpleHeaderConverter writes a value's text.
                Object v = value(event, f, columns.get(i));
                headers.add(f.alias(), v == null ? null : RelayFormat.utf8(String.valueOf(v)));
            }
        }
        for (Map.Entry<String, String> h : event.headers().entrySet()) {
            // The row's own headers (the relay's headers column; Debezium's router does not read it) come last.
            if (h.getKey().equalsIgnoreCase(HEADER_ID) || settings.fields().stream()
                    .anyMatch(f -> f.placement() == Placement.HEADER && f.alias().equalsIgnoreCase(h.getKey()))) {
                throw RelayFormat.reserved(event, h.getKey());
            }
            headers.add(h.getKey(), RelayFormat.utf8(h.getValue()));
        }
        return new ProducerRecord<>(topic, null, key(topic, event.aggregateId()), value(topic, event), headers);
    }

    private byte[] key(String topic, String aggregateId) {
        return settings.key() == RouterSettings.Key.STRING ? RelayFormat.utf8(aggregateId)
                : keyConverter.fromConnectData(topic, Schema.STRING_SCHEMA, aggregateId);
    }

    private byte[] value(String topic, OutboxEvent event) {
        String payload = event.payload();
        if (settings.tombstoneOnEmpty() && !event.isBinary() && (payload == null || payload.trim().isEmpty())) {
            return null;
        }
        if (settings.value() == RouterSettings.Value.STRING) {
            // Envelopes are refused with this converter. Binary payloads as they are (Connect's StringConverter
            // would write the array's toString()).
            return event.payloadBytes();
        }
        // A bytea payload is Connect BYTES, which JsonConverter writes as a base64 string; the router expands
        // only strings.
        SchemaAndValue body = event.isBinary()
                ? new SchemaAndValue(Schema.OPTIONAL_BYTES_SCHEMA, event.binaryPayload())
                : settings.value() == RouterSettings.Value.JSON_EXPANDED
                ? JsonExpansion.expand(PAYLOAD_COLUMN, payload, Schema.OPTIONAL_STRING_SCHEMA)
                : new SchemaAndValue(Schema.OPTIONAL_STRING_SCHEMA, payload);
        if (!envelope) {
            return valueConverter.fromConnectData(topic, body.schema(), body.value());
        }
        SchemaBuilder schema = SchemaBuilder.struct().field(ENVELOPE_PAYLOAD, body.schema());
        List<RouterSettings.Field> fields = settings.fields();
        List<Object> values = new ArrayList<>();
        for (int i = 0; i < columns.size(); i++) {
            RouterSettings.Field f = fields.get(i);
            if (f.placement() == Placement.ENVELOPE) {
                Object v = value(event, f, columns.get(i));
                values.add(v);
                schema.field(f.alias(), schemaOf(v));
            }
        }
        Struct value = new Struct(schema.build()).put(ENVELOPE_PAYLOAD, body.value());
        int next = 0;
        for (RouterSettings.Field f : fields) {
            if (f.placement() == Placement.ENVELOPE) {
                value.put(f.alias(), values.get(next++));
            }
        }
        return valueConverter.fromConnectData(topic, value.schema(), value);
    }

    private static JsonConverter converter(boolean isKey) {
        JsonConverter converter = new JsonConverter();
        converter.configure(Map.of("schemas.enable", "false"), isKey);
        return converter;
    }

    @Override
    public String toString() {
        return "debezium (value " + settings.value().name().toLowerCase(java.util.Locale.ROOT).replace('_', '-')
                + ", key " + settings.key().name().toLowerCase(java.util.Locale.ROOT)
                + (settings.fields().isEmpty() ? "" : ", fields " + settings.fields())
                + (settings.tombstoneOnEmpty() ? ", tombstone on empty payload" : "") + ")";
    }

    /** The event's text columns by their name in the table: what additional fields may name. */
    private static Map<String, TableLayout.Column> placeable(TableLayout layout) {
        Map<String, TableLayout.Column> m = new LinkedHashMap<>();
        for (TableLayout.Column c : List.of(TableLayout.Column.ID, TableLayout.Column.AGGREGATE_TYPE,
                TableLayout.Column.AGGREGATE_ID, TableLayout.Column.EVENT_TYPE)) {
            m.put(layout.name(c), c);
        }
        return m;
    }

    /** The Connect type Debezium gives the column, from the value the relay read (JsonConverter writes the same). */
    private static Schema schemaOf(Object v) {
        if (v instanceof Integer) {
            return Schema.OPTIONAL_INT32_SCHEMA;
        } else if (v instanceof Long) {
            return Schema.OPTIONAL_INT64_SCHEMA;
        } else if (v instanceof Short) {
            return Schema.OPTIONAL_INT16_SCHEMA;
        } else if (v instanceof Boolean) {
            return Schema.OPTIONAL_BOOLEAN_SCHEMA;
        } else if (v instanceof Double) {
            return Schema.OPTIONAL_FLOAT64_SCHEMA;
        } else if (v instanceof Float) {
            return Schema.OPTIONAL_FLOAT32_SCHEMA;
        }
        return Schema.OPTIONAL_STRING_SCHEMA;
    }

    private static Object value(OutboxEvent event, RouterSettings.Field f, TableLayout.Column role) {
        return role == null ? event.columns().get(f.column()) : value(event, role);
    }

    private static String value(OutboxEvent event, TableLayout.Column column) {
        return switch (column) {
            case ID -> event.id().toString();
            case AGGREGATE_TYPE -> event.aggregateType();
            case AGGREGATE_ID -> event.aggregateId();
            case EVENT_TYPE -> event.eventType();
            default -> throw new IllegalStateException(column.name());
        };
    }
}
