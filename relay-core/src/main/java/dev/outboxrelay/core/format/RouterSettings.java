package dev.outboxrelay.core.format;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * How {@link MessageFormat#debeziumRouter} writes records: the settings of a Kafka Connect pipeline running Debezium's
 * Outbox Event Router that a team moves to the relay, each one named after what it stands for there.
 *
 * @param value            the value converter and {@code table.expand.json.payload}
 * @param key              the key converter
 * @param fields           {@code table.fields.additional.placement}, in order
 * @param tombstoneOnEmpty {@code route.tombstone.on.empty.payload}: a null or blank payload becomes a tombstone
 */
public record RouterSettings(Value value, Key key, List<Field> fields, boolean tombstoneOnEmpty) {

    public RouterSettings {
        Objects.requireNonNull(value, "value");
        Objects.requireNonNull(key, "key");
        fields = List.copyOf(fields);
        if (value == Value.STRING && fields.stream().anyMatch(f -> f.placement() == Placement.ENVELOPE)) {
            throw new IllegalArgumentException("envelope fields need a JSON value (--debezium-value json or"
                    + " json-expanded): Kafka's StringConverter cannot write the envelope");
        }
    }

    /** The value as a Connect worker would write it. */
    public enum Value {
        /** {@code StringConverter}: the payload text as written (jsonb's text form). */
        STRING,
        /** {@code JsonConverter} with {@code schemas.enable=false}: the payload as a JSON string. */
        JSON,
        /** {@code JsonConverter} with {@code schemas.enable=false} and {@code table.expand.json.payload=true}. */
        JSON_EXPANDED
    }

    /** The key as a Connect worker would write it. */
    public enum Key {
        /** {@code StringConverter}: the aggregate id as UTF-8. */
        STRING,
        /** {@code JsonConverter} with {@code schemas.enable=false}: the aggregate id as a JSON string. */
        JSON
    }

    /** Where an additional column goes. */
    public enum Placement {
        /** A record header (Connect's {@code SimpleHeaderConverter}: the value's text). */
        HEADER,
        /** A field of the value next to {@code payload}: the value becomes {@code {"payload": ..., alias: ...}}. */
        ENVELOPE
    }

    /** One {@code column:placement[:alias]} entry. */
    public record Field(String column, Placement placement, String alias) {

        /** Parses {@code column:header|envelope[:alias]}; the alias defaults to the column name. */
        public static Field parse(String spec) {
            String[] parts = spec.trim().split(":", -1);
            if (parts.length < 2 || parts.length > 3 || parts[0].isBlank() || parts[1].isBlank()
                    || (parts.length == 3 && parts[2].isBlank())) {
                throw new IllegalArgumentException("'" + spec + "' is not column:placement[:alias]");
            }
            Placement placement = switch (parts[1].toLowerCase(Locale.ROOT)) {
                case "header" -> Placement.HEADER;
                case "envelope" -> Placement.ENVELOPE;
                case "partition" -> throw new IllegalArgumentException("'" + spec + "': placement partition is not"
                        + " supported: the relay partitions by key, which per-key order depends on");
                default -> throw new IllegalArgumentException("'" + spec + "': placement must be header or envelope");
            };
            return new Field(parts[0], placement, parts.length == 3 ? parts[2] : parts[0]);
        }

        /** Parses a comma-separated list of entries. */
        public static List<Field> parseList(String specs) {
            List<Field> fields = new ArrayList<>();
            for (String spec : specs.split(",")) {
                if (!spec.isBlank()) {
                    fields.add(parse(spec));
                }
            }
            return List.copyOf(fields);
        }

        @Override
        public String toString() {
            return column + ":" + placement.name().toLowerCase(Locale.ROOT) + (alias.equals(column) ? "" : ":" + alias);
        }
    }
}
