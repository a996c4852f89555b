package dev.outboxrelay.core.config;

import dev.outboxrelay.core.format.MessageFormat;
import dev.outboxrelay.core.format.RouterSettings;
import java.util.List;

/** The settings of {@code --message-format debezium}: the Connect converters and router options it stands for. */
public final class FormatOptions {

    public static final Option<RouterSettings.Value> DEBEZIUM_VALUE = Option.enumeration("debezium-value",
                    RouterSettings.Value.class)
            .defaultValue("json-expanded")
            .doc("With --message-format debezium, the value as a Connect worker writes it after Debezium's outbox"
                    + " router: json-expanded (JsonConverter without schemas, table.expand.json.payload=true),"
                    + " json (JsonConverter without schemas: the payload as a JSON string) or string"
                    + " (StringConverter: the payload text).")
            .example("string")
            .build();

    public static final Option<RouterSettings.Key> DEBEZIUM_KEY = Option.enumeration("debezium-key",
                    RouterSettings.Key.class)
            .defaultValue("string")
            .doc("With --message-format debezium, the key (the aggregate id) as a Connect worker writes it: string"
                    + " (StringConverter) or json (JsonConverter without schemas: a JSON string).")
            .example("json")
            .build();

    public static final Option<List<RouterSettings.Field>> DEBEZIUM_FIELDS = Option.builder("debezium-fields",
                    OptionType.custom("column:placement[:alias],...", RouterSettings.Field::parseList))
            .defaultValue("")
            .doc("With --message-format debezium, the router's table.fields.additional.placement: columns of the"
                    + " table (any; those beyond the event's are read with it) placed as a header or an envelope"
                    + " field (the value becomes {\"payload\": ..., alias: ...}), in order.")
            .example("event_type:header:eventType,aggregate_type:envelope:type")
            .build();

    public static final Option<Boolean> DEBEZIUM_TOMBSTONE_ON_EMPTY = Option.bool("debezium-tombstone-on-empty-payload")
            .defaultValue("false")
            .doc("With --message-format debezium, the router's route.tombstone.on.empty.payload: a null or blank"
                    + " payload is published as a tombstone (null value) even with envelope fields.")
            .example("true")
            .build();

    public static final Option<String> PAYLOAD_CONTENT_TYPE = Option.string("payload-content-type")
            .validate(v -> v.matches("[A-Za-z0-9!#$&^_.+-]+/[A-Za-z0-9!#$&^_.+-]+(\\s*;.*)?") ? null
                    : "must be a media type such as application/x-protobuf")
            .doc("The media type of bytea payloads (published unchanged): the content-type header with"
                    + " --message-format relay (unless the row's headers set one), datacontenttype with cloudevents-*"
                    + " (default application/octet-stream there).")
            .example("application/x-protobuf")
            .build();

    static final List<Option<?>> ALL = List.of(DEBEZIUM_VALUE, DEBEZIUM_KEY, DEBEZIUM_FIELDS,
            DEBEZIUM_TOMBSTONE_ON_EMPTY);

    private FormatOptions() {
    }

    /** The router settings of a validated config. */
    public static RouterSettings routerSettings(RelayConfig config) {
        return new RouterSettings(config.get(DEBEZIUM_VALUE), config.get(DEBEZIUM_KEY), config.get(DEBEZIUM_FIELDS),
                config.get(DEBEZIUM_TOMBSTONE_ON_EMPTY));
    }

    /**
     * The columns {@code --topic-template} ({@code ${column.<name>}}) and, with the Debezium format,
     * {@code --debezium-fields} name: what the table layout reads besides the event's own (options absent from
     * a command's spec name none).
     */
    static List<String> namedColumns(RelayConfig config) {
        List<String> named = new java.util.ArrayList<>();
        config.find(KafkaOptions.TOPIC_TEMPLATE).ifPresent(t -> named.addAll(
                dev.outboxrelay.core.route.EventRouter.columnsOf(t)));
        if (config.find(KafkaOptions.MESSAGE_FORMAT).orElse(null) == MessageFormat.Kind.DEBEZIUM) {
            config.find(DEBEZIUM_FIELDS).ifPresent(fields -> fields.forEach(f -> named.add(f.column())));
        }
        return named;
    }

    /** The other columns that the topic template and the additional fields name can be read with each event. */
    private static boolean extraColumns(RelayConfig config, List<String> problems) {
        try {
            dev.outboxrelay.schema.TableLayout.RELAY.withExtras(namedColumns(config));
        } catch (IllegalArgumentException e) {
            problems.add("--topic-template/--debezium-fields: " + e.getMessage());
            return false;
        }
        dev.outboxrelay.schema.TableLayout layout = DatabaseOptions.layout(config);
        for (String column : config.find(KafkaOptions.TOPIC_TEMPLATE).map(
                dev.outboxrelay.core.route.EventRouter::columnsOf).orElse(List.of())) {
            dev.outboxrelay.schema.TableLayout.Column role = layout.roleOf(column);
            if (role == dev.outboxrelay.schema.TableLayout.Column.PAYLOAD
                    || role == dev.outboxrelay.schema.TableLayout.Column.HEADERS
                    || role == dev.outboxrelay.schema.TableLayout.Column.CREATED_AT) {
                problems.add("--topic-template: ${column." + column + "} is the event's " + role.optionName()
                        + " column, which cannot be part of a topic name");
                return false;
            }
        }
        return true;
    }

    /** The Debezium settings are consistent, and set only with the format that uses them. */
    public static void check(RelayConfig config, List<String> problems) {
        if (!extraColumns(config, problems)) {
            return;
        }
        MessageFormat.Kind kind = config.find(KafkaOptions.MESSAGE_FORMAT).orElse(null);
        if (kind == null) {
            return; // its own problem is reported
        }
        if (kind != MessageFormat.Kind.DEBEZIUM) {
            for (Option<?> o : ALL) {
                if (config.source(o).filter(s -> s != ValueSource.DEFAULT).isPresent()) {
                    problems.add(o.flag() + ": applies only with --message-format debezium");
                }
            }
            return;
        }
        try {
            MessageFormat.of(kind, null, routerSettings(config), DatabaseOptions.layout(config));
        } catch (IllegalArgumentException e) {
            problems.add(DEBEZIUM_FIELDS.flag() + ": " + e.getMessage());
        } catch (RuntimeException e) {
            // an option's own parse problem, already reported
        }
    }
}
