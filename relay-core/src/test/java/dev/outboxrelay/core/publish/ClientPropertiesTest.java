package dev.outboxrelay.core.publish;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The relay's other clients connect as its producer does, and take nothing a producer-only key would warn about. */
class ClientPropertiesTest {

    private final Map<String, Object> producer = ProducerSettings.of("kafka:9092", Map.of(
            "security.protocol", "SSL", "ssl.truststore.location", "/etc/trust.jks", "linger.ms", "7")).producerProperties();

    @Test
    void anAdminClientGetsTheConnectionAndSecurityButNoProducerTuning() {
        Map<String, Object> admin = ClientProperties.admin(producer, "outbox-relay-probe");
        assertThat(admin).containsEntry("bootstrap.servers", "kafka:9092").containsEntry("security.protocol", "SSL")
                .containsEntry("ssl.truststore.location", "/etc/trust.jks")
                .containsEntry("client.id", "outbox-relay-probe")
                .doesNotContainKeys("linger.ms", "acks", "enable.idempotence", "key.serializer");
    }

    @Test
    void aConsumerGetsTheConnectionButNotTheProducersSerializers() {
        Map<String, Object> consumer = ClientProperties.consumer(producer, "outbox-relay-state");
        assertThat(consumer).containsEntry("bootstrap.servers", "kafka:9092").containsEntry("security.protocol", "SSL")
                .containsEntry("client.id", "outbox-relay-state")
                .doesNotContainKeys("key.serializer", "value.serializer", "linger.ms", "acks");
    }
}
