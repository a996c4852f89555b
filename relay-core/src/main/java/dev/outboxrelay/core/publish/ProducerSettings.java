package dev.outboxrelay.core.publish;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Kafka producer configuration the relay runs with: the delivery-critical settings are fixed, the rest
 * has throughput-friendly defaults, and passthrough properties ({@code --kafka.<property>=value}) may tune
 * anything that does not weaken delivery.
 *
 * <p>Unlike the Kafka client, which silently disables idempotence when other settings conflict, a passthrough
 * that would weaken delivery is refused with a {@link WeakDeliveryException} so the relay does not start.
 */
public final class ProducerSettings {

    private static final Map<String, String> DEFAULTS = Map.of(
            ProducerConfig.LINGER_MS_CONFIG, "5",
            ProducerConfig.BATCH_SIZE_CONFIG, "262144",
            ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4",
            ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");

    private final Map<String, Object> properties;

    private ProducerSettings(Map<String, Object> properties) {
        this.properties = Collections.unmodifiableMap(properties);
    }

    /**
     * Validates passthrough properties and builds the settings.
     *
     * @param bootstrapServers {@code host:port[,host:port…]}
     * @param passthrough      producer properties from the user, without the {@code kafka.} prefix
     * @throws WeakDeliveryException listing every passthrough that would weaken delivery
     */
    public static ProducerSettings of(String bootstrapServers, Map<String, String> passthrough) {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        List<String> problems = new ArrayList<>();
        // Sorted, so the problems come in a stable order whatever map the caller built.
        new TreeMap<>(passthrough).forEach((key, value) -> check(key, value.trim(), problems));
        if (!problems.isEmpty()) {
            throw new WeakDeliveryException(problems);
        }
        Map<String, Object> props = new LinkedHashMap<>(DEFAULTS);
        props.putAll(passthrough);
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new ProducerSettings(props);
    }

    private static void check(String key, String value, List<String> problems) {
        String v = value.toLowerCase(Locale.ROOT);
        switch (key) {
            case ProducerConfig.ACKS_CONFIG -> {
                if (!v.equals("all") && !v.equals("-1")) {
                    problems.add("kafka.acks=" + value + " weakens delivery: the relay requires acks=all");
                }
            }
            case ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG -> {
                if (!v.equals("true")) {
                    problems.add("kafka.enable.idempotence=" + value
                            + " weakens delivery: the relay requires the idempotent producer");
                }
            }
            case ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION -> {
                if (!isIntBetween(v, 1, 5)) {
                    problems.add("kafka.max.in.flight.requests.per.connection=" + value
                            + " breaks per-key order with idempotence: use 1 to 5");
                }
            }
            case ProducerConfig.RETRIES_CONFIG -> {
                if (!isIntBetween(v, 1, Integer.MAX_VALUE)) {
                    problems.add("kafka.retries=" + value + " weakens delivery: retries must be at least 1");
                }
            }
            case ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG,
                 ProducerConfig.TRANSACTIONAL_ID_CONFIG, ProducerConfig.BOOTSTRAP_SERVERS_CONFIG ->
                    problems.add("kafka." + key + " is set by the relay and cannot be overridden"
                            + (key.equals(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG) ? ": use --kafka-bootstrap" : ""));
            default -> { }
        }
    }

    private static boolean isIntBetween(String v, int min, int max) {
        try {
            int n = Integer.parseInt(v);
            return n >= min && n <= max;
        } catch (NumberFormatException e) {
            return false;
        }
    }

    /** The full producer configuration, for {@code new KafkaProducer<>(…)}. Contains secrets: never log it. */
    public Map<String, Object> producerProperties() {
        return properties;
    }

    /** Masks every value whose key looks secret, for the startup config dump. */
    @Override
    public String toString() {
        Map<String, Object> masked = new LinkedHashMap<>();
        properties.forEach((k, v) -> masked.put(k, Secrets.looksSecret(k) ? Secrets.MASK : v));
        return masked.toString();
    }
}
