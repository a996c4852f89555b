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

    @Test
    void unknownSettingsAreRefusedWithTheClosestKnownName() {
        assertThatThrownBy(() -> ProducerSettings.of("b:1", Map.of("lingr.ms", "5")))
                .hasMessage("kafka.lingr.ms is not a Kafka producer setting; did you mean kafka.linger.ms?");
        assertThatThrownBy(() -> ProducerSettings.of("b:1", Map.of("no.such.thing", "5")))
                .hasMessage("kafka.no.such.thing is not a Kafka producer setting");
        // Kafka's own open families stay open.
        assertThat(ProducerSettings.of("b:1", Map.of("config.providers.env.class",
                "org.apache.kafka.common.config.provider.EnvVarConfigProvider")).producerProperties())
                .containsKey("config.providers.env.class");
    }

    @Test
    void badValuesAreRefusedByKafkasOwnDefinitions() {
        Map<String, String> bad = new LinkedHashMap<>();
        bad.put("linger.ms", "abc");
        bad.put("compression.type", "bogus");
        bad.put("ssl.truststore.password", "");
        assertThatThrownBy(() -> ProducerSettings.of("b:1", bad))
                .isInstanceOfSatisfying(WeakDeliveryException.class, e -> assertThat(e.problems()).satisfiesExactly(
                        p -> assertThat(p).startsWith("kafka.compression.type: invalid value 'bogus' (expected string"),
                        p -> assertThat(p).startsWith("kafka.linger.ms: invalid value 'abc' (expected long")));
    }

    @Test
    void partitioningThatIgnoresKeysIsRefused() {
        assertThatThrownBy(() -> ProducerSettings.of("b:1", Map.of("partitioner.class",
                "org.apache.kafka.clients.producer.RoundRobinPartitioner")))
                .hasMessage("kafka.partitioner.class=org.apache.kafka.clients.producer.RoundRobinPartitioner may"
                        + " ignore keys and break per-key order: the relay partitions by key with Kafka's default");
        assertThatThrownBy(() -> ProducerSettings.of("b:1", Map.of("partitioner.ignore.keys", "true")))
                .hasMessage("kafka.partitioner.ignore.keys=true breaks per-key order: the relay partitions by key");
        assertThat(ProducerSettings.of("b:1", Map.of("partitioner.ignore.keys", "false")).producerProperties())
                .containsEntry("partitioner.ignore.keys", "false");
    }

    @Test
    void aTransactionalProducerBlocksSecondsNotAMinuteUnlessTold() {
        ExactlyOnce eos = new ExactlyOnce("r.public.outbox", "outbox-relay.state", "r.public.outbox",
                java.time.Duration.ofSeconds(10));
        assertThat(ProducerSettings.of("b:1", Map.of()).exactlyOnce(eos).producerProperties())
                .containsEntry("max.block.ms", "5000").containsEntry("transactional.id", "r.public.outbox");
        assertThat(ProducerSettings.of("b:1", Map.of("max.block.ms", "20000")).exactlyOnce(eos).producerProperties())
                .containsEntry("max.block.ms", "20000");
        assertThat(ProducerSettings.of("b:1", Map.of()).producerProperties()).doesNotContainKey("max.block.ms");
    }

    @Test
    void secretsAreKafkasPasswordSettings() {
        assertThat(ProducerSettings.isSecret("sasl.jaas.config")).isTrue();
        assertThat(ProducerSettings.isSecret("ssl.keystore.password")).isTrue();
        assertThat(ProducerSettings.isSecret("ssl.key.password")).isTrue();
        assertThat(ProducerSettings.isSecret("linger.ms")).isFalse();
        assertThat(ProducerSettings.isSecret("unknown.password.thing")).isFalse();
    }

    @Test
    void editDistanceGivesUpAtTheLimit() {
        assertThat(ProducerConfigCheck.distance("linger.ms", "linger.ms", 3)).isZero();
        assertThat(ProducerConfigCheck.distance("lingr.ms", "linger.ms", 3)).isEqualTo(1);
        assertThat(ProducerConfigCheck.distance("acks", "batch.size", 3)).isEqualTo(3);
    }
}
