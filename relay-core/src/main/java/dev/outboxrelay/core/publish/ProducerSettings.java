package dev.outboxrelay.core.publish;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The Kafka producer configuration the relay runs with: the delivery-critical settings are fixed, the rest
 * has throughput-friendly defaults, and passthrough properties ({@code --kafka.<property>=value}) may tune
 * anything that does not weaken delivery. Every passthrough is checked against Kafka's own {@link ProducerConfig}
 * definitions (name, type, validator).
 *
 * <p>Unlike the Kafka client, which silently disables idempotence when other settings conflict, a passthrough
 * that would weaken delivery is refused with a {@link WeakDeliveryException} so the relay does not start.
 */
public final class ProducerSettings {

    /**
     * linger.ms 2: the last records of each fetch or Debezium batch wait at most 2 ms for company. Measured
     * (bench/results/2026-12-05-linger-ab.md): poll p50 at 5,000 events/s 12 ms with 5 (Kafka's default), 7 with 2,
     * 5 with 0; relay CPU per event at ~12,000/s 23, 25 and 31 µs (smaller batches: more requests, more lz4 calls).
     */
    private static final Map<String, String> DEFAULTS = Map.of(
            ProducerConfig.LINGER_MS_CONFIG, "2",
            ProducerConfig.BATCH_SIZE_CONFIG, "262144",
            ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4",
            ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");

    /** {@code max.block.ms} of the transactional producer unless set: how soon a fenced instance notices. */
    static final java.time.Duration TRANSACTIONAL_MAX_BLOCK = java.time.Duration.ofSeconds(5);

    private final Map<String, Object> properties;
    /** Present with {@code --delivery exactly-once}. */
    private final java.util.Optional<ExactlyOnce> exactlyOnce;

    private ProducerSettings(Map<String, Object> properties, java.util.Optional<ExactlyOnce> exactlyOnce) {
        this.properties = Collections.unmodifiableMap(properties);
        this.exactlyOnce = exactlyOnce;
    }

    /**
     * Validates passthrough properties and builds the settings.
     *
     * @param bootstrapServers {@code host:port[,host:port…]}
     * @param passthrough      producer properties from the user, without the {@code kafka.} prefix
     * @throws WeakDeliveryException listing every passthrough that is unknown to Kafka, has a bad value or would
     *                               weaken delivery
     */
    public static ProducerSettings of(String bootstrapServers, Map<String, String> passthrough) {
        Objects.requireNonNull(bootstrapServers, "bootstrapServers");
        List<String> problems = new ArrayList<>();
        // Sorted, so the problems come in a stable order whatever map the caller built.
        new TreeMap<>(passthrough).forEach((key, value) -> ProducerConfigCheck.check(key, value.trim(), problems));
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
        return new ProducerSettings(props, java.util.Optional.empty());
    }

    /**
     * These settings for a transactional producer ({@code --delivery exactly-once}): {@code transactional.id} from
     * {@code exactlyOnce}, its transaction timeout unless {@code transaction.timeout.ms} was set, and
     * {@code max.block.ms} 5 s unless set.
     */
    public ProducerSettings exactlyOnce(ExactlyOnce exactlyOnce) {
        Map<String, Object> props = new LinkedHashMap<>(properties);
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, exactlyOnce.transactionalId());
        props.putIfAbsent(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG,
                String.valueOf(exactlyOnce.transactionTimeout().toMillis()));
        // A commit or abort in flight when another instance takes the id over learns of the fence only when its
        // call returns: Kafka's 60 s default kept a fenced instance silent that long; a commit that times out is
        // simply committed again.
        props.putIfAbsent(ProducerConfig.MAX_BLOCK_MS_CONFIG, String.valueOf(TRANSACTIONAL_MAX_BLOCK.toMillis()));
        return new ProducerSettings(props, java.util.Optional.of(exactlyOnce));
    }

    /** Present when the relay delivers exactly once. */
    public java.util.Optional<ExactlyOnce> exactlyOnce() {
        return exactlyOnce;
    }

    /** The full producer configuration, for {@code new KafkaProducer<>(…)}. Contains secrets: never log it. */
    public Map<String, Object> producerProperties() {
        return properties;
    }

    /**
     * Producer settings made outside the relay (e.g. a Kafka Connect connector's {@code producer.override.*}, keys
     * given without {@code prefix}) that would weaken delivery: acks other than all, idempotence off, more than five
     * requests in flight, no retries, a partitioner that may ignore keys. One problem each, named {@code prefix + key}.
     */
    public static java.util.List<String> deliveryProblems(String prefix, Map<String, String> properties) {
        java.util.List<String> problems = new java.util.ArrayList<>();
        new java.util.TreeMap<>(properties).forEach((k, v) -> ProducerConfigCheck.checkDelivery(prefix, k, v, problems));
        return problems;
    }

    /**
     * True for settings Kafka declares as passwords ({@code sasl.jaas.config}, {@code ssl.*.password}, …): the
     * relay takes them from the environment or a file, never from the command line.
     */
    public static boolean isSecret(String property) {
        return ProducerConfigCheck.isPassword(property);
    }

    /** Masks every value whose key looks secret, for the startup config dump. */
    @Override
    public String toString() {
        Map<String, Object> masked = new LinkedHashMap<>();
        properties.forEach((k, v) -> masked.put(k, Secrets.looksSecret(k) ? Secrets.MASK : v));
        return masked.toString();
    }
}
