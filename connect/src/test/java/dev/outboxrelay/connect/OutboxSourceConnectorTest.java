package dev.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.junit.jupiter.api.Test;

class OutboxSourceConnectorTest {

    private static Map<String, String> valid() {
        Map<String, String> props = new HashMap<>();
        props.put("connector.class", OutboxSourceConnector.class.getName());
        props.put("db-url", "jdbc:postgresql://db:5432/app");
        props.put("db-user", "relay");
        props.put("db-password", "s3cret");
        OutboxSourceConnector.CONVERTERS.forEach(k -> props.put(k, OutboxSourceConnector.BYTE_ARRAY));
        return props;
    }

    @Test
    void oneShardPerTask() {
        OutboxSourceConnector connector = new OutboxSourceConnector();
        connector.start(valid());
        List<Map<String, String>> tasks = connector.taskConfigs(4);
        assertThat(tasks).hasSize(4);
        for (int i = 0; i < 4; i++) {
            assertThat(tasks.get(i)).containsEntry(OutboxSourceConnector.TASK_INDEX, Integer.toString(i))
                    .containsEntry(OutboxSourceConnector.TASK_COUNT, "4").containsEntry("db-user", "relay");
        }
    }

    @Test
    void refusesConvertersThatWouldReencodeTheRecords() {
        Map<String, String> props = valid();
        props.put("value.converter", "org.apache.kafka.connect.json.JsonConverter");
        props.remove("header.converter");
        assertThat(OutboxSourceConnector.connectorProblems(props)).containsExactly(
                "value.converter: must be org.apache.kafka.connect.converters.ByteArrayConverter in the connector's"
                        + " configuration (the records are the relay's bytes; another converter would re-encode"
                        + " them), was org.apache.kafka.connect.json.JsonConverter",
                "header.converter: must be org.apache.kafka.connect.converters.ByteArrayConverter in the connector's"
                        + " configuration (the records are the relay's bytes; another converter would re-encode"
                        + " them), was not set");
        assertThatThrownBy(() -> new OutboxSourceConnector().start(props)).isInstanceOf(ConnectException.class)
                .hasMessageStartingWith("Invalid outbox-relay connector configuration: value.converter: must be");
        Config config = new OutboxSourceConnector().validate(props);
        assertThat(config.configValues()).filteredOn(v -> v.name().equals("header.converter"))
                .flatExtracting(ConfigValue::errorMessages).hasSize(1);
    }

    @Test
    void refusesProducerOverridesThatWeakenDelivery() {
        Map<String, String> props = valid();
        props.put("producer.override.acks", "1");
        props.put("producer.override.enable.idempotence", "false");
        props.put("producer.override.linger.ms", "10");
        assertThat(OutboxSourceConnector.connectorProblems(props)).containsExactly(
                "producer.override.acks=1 weakens delivery: the relay requires acks=all",
                "producer.override.enable.idempotence=false weakens delivery: the relay requires the idempotent"
                        + " producer");
    }

    @Test
    void exactlyOnceNeedsOneTransactionPerPoll() {
        Map<String, String> props = valid();
        props.put("exactly.once.support", "required");
        props.put("transaction.boundary", "interval");
        assertThat(OutboxSourceConnector.connectorProblems(props)).containsExactly(
                "transaction.boundary: must be poll (the default) for exactly-once, was interval");
        props.put("transaction.boundary", "poll");
        assertThat(OutboxSourceConnector.connectorProblems(props)).isEmpty();
        assertThat(new OutboxSourceConnector().exactlyOnceSupport(props)).isEqualTo(ExactlyOnceSupport.SUPPORTED);
    }

    @Test
    void crossOptionProblemsShowInValidation() {
        Map<String, String> props = valid();
        props.put("debezium-key", "json");
        Config config = new OutboxSourceConnector().validate(props);
        assertThat(config.configValues()).flatExtracting(ConfigValue::errorMessages)
                .containsExactly("--debezium-key: applies only with --message-format debezium");
    }
}
