package dev.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxrelay.core.config.ConfigException;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.core.config.ValueSource;
import dev.outboxrelay.poll.PollOptions;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.junit.jupiter.api.Test;

class ConnectorOptionsTest {

    private static Map<String, String> minimal() {
        Map<String, String> props = new HashMap<>();
        props.put("db-url", "jdbc:postgresql://db:5432/app");
        props.put("db-user", "relay");
        props.put("db-password", "s3cret");
        return props;
    }

    @Test
    void everyKeyIsARelayOptionDeclaredOnceWithItsDefaultAndDoc() {
        ConfigDef def = ConnectorOptions.configDef();
        for (Option<?> o : ConnectorOptions.SPEC.options()) {
            ConfigDef.ConfigKey key = def.configKeys().get(o.name());
            assertThat(key).as(o.name()).isNotNull();
            assertThat(key.documentation).startsWith(o.doc());
            if (o.defaultValue() != null) {
                assertThat(String.valueOf(key.defaultValue)).as(o.name()).isEqualTo(o.defaultValue());
            }
        }
        assertThat(def.names()).hasSize(ConnectorOptions.SPEC.options().size());
        assertThat(def.configKeys().get("db-password").type).isEqualTo(ConfigDef.Type.PASSWORD);
        assertThat(def.configKeys().get("batch-size").type).isEqualTo(ConfigDef.Type.INT);
        assertThat(def.configKeys().get("db-url").importance).isEqualTo(ConfigDef.Importance.HIGH);
        // The worker's producer publishes: the daemon's producer options do not apply.
        assertThat(def.names()).doesNotContain(KafkaOptions.KAFKA_BOOTSTRAP.name(),
                KafkaOptions.KAFKA_CONFIG_FILE.name());
    }

    @Test
    void aValueIsRefusedWithTheDaemonsMessage() {
        Map<String, String> props = minimal();
        props.put("batch-size", "0");
        List<ConfigValue> values = ConnectorOptions.configDef().validate(props);
        ConfigValue batch = values.stream().filter(v -> v.name().equals("batch-size")).findFirst().orElseThrow();
        assertThat(batch.errorMessages()).containsExactly("batch-size: must be between 1 and 100000, was 0");
        assertThatThrownBy(() -> ConnectorOptions.resolve(props)).isInstanceOf(ConfigException.class)
                .hasMessage("batch-size: must be between 1 and 100000, was 0");
    }

    @Test
    void secretsAreNeverEchoed() {
        Map<String, String> props = minimal();
        props.put("db-url", "jdbc:postgresql://db:5432/app?password=hunter2");
        props.put("on-publish", "hunter3");
        assertThatThrownBy(() -> ConnectorOptions.resolve(props)).isInstanceOf(ConfigException.class)
                .hasMessageNotContaining("hunter2")
                .hasMessageContaining("on-publish: expected one of mark, delete, was 'hunter3'")
                .hasMessageContaining("db-url: 'password' in the URL is not accepted, Connect shows the URL to"
                        + " everyone who can read the connector's configuration; use db-password (a PASSWORD) and the"
                        + " worker's config providers");
    }

    @Test
    void resolvesFromTheConnectorConfigPasswordIncluded() {
        Map<String, String> props = minimal();
        props.put("connector.class", OutboxSourceConnector.class.getName());
        props.put("tasks.max", "4");
        props.put("batch-size", "250");
        RelayConfig config = ConnectorOptions.resolve(props);
        assertThat(config.get(PollOptions.BATCH_SIZE)).isEqualTo(250);
        assertThat(DatabaseOptions.password(config)).hasValueSatisfying(p -> assertThat(p.reveal()).isEqualTo("s3cret"));
        assertThat(config.source(DatabaseOptions.DB_PASSWORD)).contains(ValueSource.CONNECTOR_CONFIG);
        assertThat(config.toString()).doesNotContain("s3cret");
    }

    @Test
    void crossOptionChecksRunAsOnTheDaemon() {
        Map<String, String> props = minimal();
        props.put("debezium-key", "json");
        assertThat(ConnectorOptions.problems(props)).containsExactly(
                "--debezium-key: applies only with --message-format debezium");
    }
}
