package dev.outboxrelay.core.publish;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * The relay's other Kafka clients (admin lookups, probes, the exactly-once state reader) connect as its producer
 * does: the producer's connection and security settings, only those each client knows (others would make it log
 * "supplied but not used"), under a client id of their own.
 */
public final class ClientProperties {

    private ClientProperties() {
    }

    /** Admin client settings from the producer's, named {@code clientId}. */
    public static Map<String, Object> admin(Map<String, Object> producerProperties, String clientId) {
        Map<String, Object> props = known(producerProperties, AdminClientConfig.configNames());
        props.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId);
        return props;
    }

    /** Consumer settings from the producer's (not its serializers), named {@code clientId}. */
    public static Map<String, Object> consumer(Map<String, Object> producerProperties, String clientId) {
        Map<String, Object> props = known(producerProperties, ConsumerConfig.configNames());
        props.keySet().removeIf(k -> k.startsWith("key.") || k.startsWith("value."));
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        return props;
    }

    private static Map<String, Object> known(Map<String, Object> producerProperties, Set<String> names) {
        Map<String, Object> props = new HashMap<>();
        producerProperties.forEach((k, v) -> {
            if (names.contains(k)) {
                props.put(k, v);
            }
        });
        return props;
    }
}
