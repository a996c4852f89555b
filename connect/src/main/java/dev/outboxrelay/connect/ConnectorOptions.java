package dev.outboxrelay.connect;

import dev.outboxrelay.core.config.ConfigException;
import dev.outboxrelay.core.config.ConfigSources;
import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.FormatOptions;
import dev.outboxrelay.core.config.InstanceOptions;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.poll.PollOptions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;

/**
 * The connector's configuration: the relay's own option declarations (names, types, defaults, validation, docs),
 * those that mean something on Connect, turned into a Connect {@link ConfigDef}. The producer and its settings are
 * the worker's, so {@code kafka-bootstrap} and the {@code kafka.*} passthrough are not among them; secrets are
 * {@code PASSWORD}s.
 */
public final class ConnectorOptions {

    /** Routing and formats, exactly the daemon's. */
    static final OptionSet ROUTING = OptionSet.builder("Routing and formats")
            .add(KafkaOptions.TOPIC_TEMPLATE).add(KafkaOptions.TOPIC_ALLOW).add(KafkaOptions.MESSAGE_FORMAT)
            .add(KafkaOptions.CLOUDEVENTS_SOURCE).add(FormatOptions.DEBEZIUM_VALUE).add(FormatOptions.DEBEZIUM_KEY)
            .add(FormatOptions.DEBEZIUM_FIELDS).add(FormatOptions.DEBEZIUM_TOMBSTONE_ON_EMPTY)
            .add(FormatOptions.PAYLOAD_CONTENT_TYPE)
            .check(FormatOptions::check)
            .build();

    /** Acknowledgement, attempts, dead letters and retention, and how each task reads. */
    static final OptionSet DELIVERY = OptionSet.of("Delivery and reading",
            KafkaOptions.ON_PUBLISH, KafkaOptions.MAX_ATTEMPTS, KafkaOptions.ON_POISON, KafkaOptions.RETENTION,
            KafkaOptions.PURGE_INTERVAL, KafkaOptions.MAX_IN_FLIGHT_BYTES, PollOptions.BATCH_SIZE,
            PollOptions.POLL_INTERVAL, PollOptions.PIPELINE_DEPTH, InstanceOptions.STANDBY_INTERVAL,
            InstanceOptions.RELAY_NAME);

    /** Every set the connector reads, in the order its documentation lists them. */
    static final ConfigSpec SPEC = ConfigSpec.of(DatabaseOptions.CONNECTION, ROUTING, DELIVERY);

    private static final ConfigDef CONFIG_DEF = configDef(SPEC);

    private ConnectorOptions() {
    }

    /** The connector's {@link ConfigDef}, derived from {@link #SPEC}. */
    public static ConfigDef configDef() {
        return CONFIG_DEF;
    }

    /**
     * Every option of {@code spec} as a Connect key of the same name: {@code PASSWORD} for secrets, {@code INT} and
     * {@code BOOLEAN} where the relay's type is one, {@code STRING} otherwise, each validated by the relay's own
     * parser and validator, so a value is accepted or refused with the same message as on the daemon.
     */
    static ConfigDef configDef(ConfigSpec spec) {
        ConfigDef def = new ConfigDef();
        for (OptionSet set : spec.sets()) {
            int order = 0;
            for (Option<?> o : set.options()) {
                ConfigDef.Type type = o.secret() ? ConfigDef.Type.PASSWORD
                        : o.type().label().equals("int") ? ConfigDef.Type.INT
                        : o.type().label().equals("boolean") ? ConfigDef.Type.BOOLEAN
                        : ConfigDef.Type.STRING;
                Object dflt = o.defaultValue() != null ? o.defaultValue()
                        : o.required() ? ConfigDef.NO_DEFAULT_VALUE : null;
                String doc = o.doc() + (o.example() != null && !o.secret() ? " Example: " + o.example() + "." : "");
                def.define(o.name(), type, dflt, validator(o), o.required() ? ConfigDef.Importance.HIGH
                        : ConfigDef.Importance.MEDIUM, doc, set.title(), ++order, ConfigDef.Width.MEDIUM, o.name());
            }
        }
        return def;
    }

    private static ConfigDef.Validator validator(Option<?> option) {
        return (name, value) -> {
            if (value == null) {
                return;
            }
            String text = value instanceof org.apache.kafka.common.config.types.Password p ? p.value()
                    : String.valueOf(value);
            String problem = problem(option, text);
            if (problem != null) {
                // Secret values are never echoed: ConfigException(name, value, message) would print them.
                throw new org.apache.kafka.common.config.ConfigException(name + ": " + problem);
            }
        };
    }

    private static <T> String problem(Option<T> option, String text) {
        T parsed;
        try {
            parsed = option.type().parse(text);
        } catch (IllegalArgumentException e) {
            return option.secret() ? "invalid value" : e.getMessage();
        }
        String problem = option.validator().problem(parsed);
        if (problem == null || option.secret()) {
            return problem;
        }
        String shown = option.shown(text);
        return problem + ", was " + (shown.matches("-?\\d+") ? shown : "'" + shown + "'");
    }

    /**
     * The validated relay configuration of a connector or task: the options among {@code props} (Connect's own keys
     * such as {@code connector.class} and {@code tasks.max} are left to Connect), cross-option checks included.
     *
     * @throws ConfigException listing every problem
     */
    public static RelayConfig resolve(Map<String, String> props) {
        Map<String, String> ours = new LinkedHashMap<>();
        props.forEach((k, v) -> {
            if (SPEC.option(k).isPresent() && v != null) {
                ours.put(k, v);
            }
        });
        return SPEC.resolve(ConfigSources.builder().connectorConfig(ours).build());
    }

    /** The problems {@link #resolve} finds, none when the configuration is valid. */
    static List<String> problems(Map<String, String> props) {
        try {
            resolve(props);
            return List.of();
        } catch (ConfigException e) {
            return e.problems();
        }
    }
}
