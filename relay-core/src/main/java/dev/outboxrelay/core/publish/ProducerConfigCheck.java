package dev.outboxrelay.core.publish;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Checks passthrough producer properties against Kafka's own {@link ProducerConfig} definitions, so that a
 * typo or a bad value stops the relay before anything is contacted, and against the relay's delivery rules
 * (acks, idempotence, in-flight requests, keyed partitioning).
 */
final class ProducerConfigCheck {

    private static final ConfigDef DEFINITIONS = ProducerConfig.configDef();
    private static final Set<String> NAMES = ProducerConfig.configNames();
    /** Families Kafka itself accepts beyond the declared names (config providers, metrics context). */
    private static final List<String> OPEN_PREFIXES = List.of("config.providers.", "metrics.context.");

    private ProducerConfigCheck() {
    }

    /** True when Kafka declares {@code key} as a password (e.g. {@code sasl.jaas.config}, {@code ssl.key.password}). */
    static boolean isPassword(String key) {
        ConfigDef.ConfigKey def = DEFINITIONS.configKeys().get(key);
        return def != null && def.type == ConfigDef.Type.PASSWORD;
    }

    /** Adds one problem per unknown key, unparsable or invalid value, or setting that weakens delivery. */
    static void check(String key, String value, List<String> problems) {
        ConfigDef.ConfigKey def = DEFINITIONS.configKeys().get(key);
        if (def == null) {
            if (OPEN_PREFIXES.stream().noneMatch(key::startsWith)) {
                problems.add("kafka." + key + " is not a Kafka producer setting" + suggestion(key));
            }
            return;
        }
        try {
            Object parsed = ConfigDef.parseType(key, value, def.type);
            if (def.validator != null) {
                def.validator.ensureValid(key, parsed);
            }
        } catch (ConfigException e) {
            problems.add("kafka." + key + ": invalid value" + (def.type == ConfigDef.Type.PASSWORD ? ""
                    : " '" + value + "'") + " (" + describe(def) + ")");
            return;
        }
        weakening(key, value.toLowerCase(Locale.ROOT), value, problems);
    }

    private static String describe(ConfigDef.ConfigKey def) {
        String type = def.type.name().toLowerCase(Locale.ROOT);
        return def.validator == null ? "expected " + type : "expected " + type + " " + def.validator;
    }

    /**
     * The delivery rules for producer settings made elsewhere (a Connect connector's {@code producer.override.*}),
     * each named {@code prefix + key}; values Kafka cannot parse are left to the component that owns them.
     */
    static void checkDelivery(String prefix, String key, String value, List<String> problems) {
        ConfigDef.ConfigKey def = DEFINITIONS.configKeys().get(key);
        if (def == null) {
            return;
        }
        try {
            ConfigDef.parseType(key, value, def.type);
        } catch (ConfigException e) {
            return;
        }
        weakening(prefix, key, value.trim().toLowerCase(Locale.ROOT), value, problems);
    }

    private static void weakening(String key, String v, String value, List<String> problems) {
        weakening("kafka.", key, v, value, problems);
        switch (key) {
            case ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                 ProducerConfig.TRANSACTIONAL_ID_CONFIG, ProducerConfig.BOOTSTRAP_SERVERS_CONFIG ->
                    problems.add("kafka." + key + " is set by the relay and cannot be overridden"
                            + (key.equals(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG) ? ": use --kafka-bootstrap" : ""));
            default -> { }
        }
    }

    /**
     * The delivery rules alone (acks, idempotence, in-flight requests, retries, keyed partitioning) for a producer
     * property written as {@code prefix + key}, e.g. a Connect connector's {@code producer.override.acks}.
     */
    private static void weakening(String prefix, String key, String v, String value, List<String> problems) {
        switch (key) {
            case ProducerConfig.ACKS_CONFIG -> {
                if (!v.equals("all") && !v.equals("-1")) {
                    problems.add(prefix + "acks=" + value + " weakens delivery: the relay requires acks=all");
                }
            }
            case ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG -> {
                if (!v.equals("true")) {
                    problems.add(prefix + "enable.idempotence=" + value
                            + " weakens delivery: the relay requires the idempotent producer");
                }
            }
            case ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION -> {
                if (Integer.parseInt(v) > 5) {
                    problems.add(prefix + "max.in.flight.requests.per.connection=" + value
                            + " breaks per-key order with idempotence: use 1 to 5");
                }
            }
            case ProducerConfig.RETRIES_CONFIG -> {
                if (Integer.parseInt(v) < 1) {
                    problems.add(prefix + "retries=" + value + " weakens delivery: retries must be at least 1");
                }
            }
            case ProducerConfig.PARTITIONER_CLASS_CONFIG -> problems.add(prefix + "partitioner.class=" + value
                    + " may ignore keys and break per-key order: the relay partitions by key with Kafka's default");
            case ProducerConfig.PARTITIONER_IGNORE_KEYS_CONFIG -> {
                if (v.equals("true")) {
                    problems.add(prefix + "partitioner.ignore.keys=true breaks per-key order:"
                            + " the relay partitions by key");
                }
            }
            default -> { }
        }
    }

    /** "; did you mean kafka.linger.ms?" for a name within two edits of a known one. */
    private static String suggestion(String key) {
        String best = null;
        int bestDistance = 3;
        for (String name : NAMES) {
            int d = distance(key, name, bestDistance);
            if (d < bestDistance) {
                bestDistance = d;
                best = name;
            }
        }
        return best == null ? "" : "; did you mean kafka." + best + "?";
    }

    /** Levenshtein distance, giving up (returning {@code limit}) once it cannot stay below it. */
    static int distance(String a, String b, int limit) {
        if (Math.abs(a.length() - b.length()) >= limit) {
            return limit;
        }
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            int rowMin = cur[0];
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
                rowMin = Math.min(rowMin, cur[j]);
            }
            if (rowMin >= limit) {
                return limit;
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return Math.min(prev[b.length()], limit);
    }

    /** Kafka's own names, for callers that map environment variables back to properties. */
    static Map<String, ConfigDef.ConfigKey> definitions() {
        return DEFINITIONS.configKeys();
    }
}
