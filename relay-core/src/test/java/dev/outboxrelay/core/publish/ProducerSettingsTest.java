package dev.outboxrelay.core.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProducerSettingsTest {

    @Test
    void deliverySettingsAreExplicit() {
        Map<String, Object> p = ProducerSettings.of("localhost:9092", Map.of()).producerProperties();
        assertThat(p).containsEntry("enable.idempotence", "true").containsEntry("acks", "all")
                .containsEntry("bootstrap.servers", "localhost:9092");
    }

    @Test
    void harmlessPassthroughIsKept() {
        Map<String, Object> p = ProducerSettings.of("b:1", Map.of("compression.type", "zstd", "acks", "-1"))
                .producerProperties();
        assertThat(p).containsEntry("compression.type", "zstd").containsEntry("acks", "all");
    }

    @Test
    void everyWeakeningSettingIsRefusedAndNamed() {
        Map<String, String> weak = new LinkedHashMap<>();
        weak.put("acks", "1");
        weak.put("enable.idempotence", "false");
        weak.put("max.in.flight.requests.per.connection", "6");
        weak.put("retries", "0");
        assertThatThrownBy(() -> ProducerSettings.of("b:1", weak))
                .isInstanceOfSatisfying(WeakDeliveryException.class, e -> assertThat(e.problems()).containsExactly(
                        "kafka.acks=1 weakens delivery: the relay requires acks=all",
                        "kafka.enable.idempotence=false weakens delivery: the relay requires the idempotent producer",
                        "kafka.max.in.flight.requests.per.connection=6 breaks per-key order with idempotence: use 1 to 5",
                        "kafka.retries=0 weakens delivery: retries must be at least 1"));
    }

    @Test
    void relayOwnedSettingsCannotBeOverridden() {
        assertThatThrownBy(() -> ProducerSettings.of("b:1", Map.of("bootstrap.servers", "x:1")))
                .hasMessage("kafka.bootstrap.servers is set by the relay and cannot be overridden: use --kafka-bootstrap");
    }

    @Test
    void toStringMasksSecrets() {
        String s = ProducerSettings.of("b:1", Map.of("sasl.jaas.config", "user=\"u\" password=\"p4ss\"",
                "ssl.truststore.password", "changeit")).toString();
        assertThat(s).doesNotContain("p4ss").doesNotContain("changeit").contains(Secrets.MASK);
    }
}
