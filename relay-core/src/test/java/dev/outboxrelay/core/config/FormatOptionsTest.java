package dev.outboxrelay.core.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxrelay.core.format.RouterSettings;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The Debezium format's options: parsed, checked together, and refused where they would do nothing. */
class FormatOptionsTest {

    private static final ConfigSpec SPEC = ConfigSpec.of(DatabaseOptions.CONNECTION, KafkaOptions.SET);

    private static ConfigSources.Builder required() {
        return ConfigSources.builder().flag("db-url", "jdbc:postgresql://localhost/app").flag("db-user", "relay")
                .flag("kafka-bootstrap", "localhost:9092");
    }

    @Test
    void theDefaultsAreTheCommonConnectSetup() {
        RelayConfig c = SPEC.resolve(required().flag("message-format", "debezium").build());
        assertThat(FormatOptions.routerSettings(c)).isEqualTo(new RouterSettings(RouterSettings.Value.JSON_EXPANDED,
                RouterSettings.Key.STRING, List.of(), false));
        assertThat(KafkaOptions.router(c).toString()).contains("format debezium (value json-expanded, key string)");
    }

    @Test
    void fieldsAreParsedInOrderWithTheirAliases() {
        RelayConfig c = SPEC.resolve(required().flag("message-format", "debezium")
                .flag("debezium-fields", "event_type:header:eventType, aggregate_type:envelope").build());
        assertThat(c.get(FormatOptions.DEBEZIUM_FIELDS)).containsExactly(
                new RouterSettings.Field("event_type", RouterSettings.Placement.HEADER, "eventType"),
                new RouterSettings.Field("aggregate_type", RouterSettings.Placement.ENVELOPE, "aggregate_type"));
    }

    @Test
    void onADebeziumTableFieldsNameItsColumns() {
        RelayConfig c = SPEC.resolve(required().flag("message-format", "debezium").flag("table-format", "debezium")
                .flag("column", "aggregate-id=order_id").flag("debezium-fields", "type:header:eventType").build());
        assertThat(DatabaseOptions.table(c).layout().name(dev.outboxrelay.schema.TableLayout.Column.AGGREGATE_ID))
                .isEqualTo("order_id");
        assertThat(KafkaOptions.router(c).toString()).contains("fields [type:header:eventType]");
    }

    @Test
    void aBadColumnMappingIsNamed() {
        assertThatThrownBy(() -> SPEC.resolve(required().flag("column", "aggregate-id").build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).singleElement()
                        .asString().startsWith("--column").contains("'aggregate-id' is not role=column"));
    }

    @Test
    void debeziumSettingsWithAnotherFormatAreRefused() {
        assertThatThrownBy(() -> SPEC.resolve(required().flag("debezium-value", "string").build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "--debezium-value: applies only with --message-format debezium"));
    }

    @Test
    void anEnvelopeNeedsAJsonValue() {
        assertThatThrownBy(() -> SPEC.resolve(required().flag("message-format", "debezium")
                .flag("debezium-value", "string").flag("debezium-fields", "event_type:envelope").build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "--debezium-fields: envelope fields need a JSON value (--debezium-value json or json-expanded):"
                                + " Kafka's StringConverter cannot write the envelope"));
    }

    @Test
    void aTopicCannotNameThePayloadColumn() {
        assertThatThrownBy(() -> SPEC.resolve(required().flag("table-format", "debezium")
                .flag("topic-template", "t.${column.payload}").build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "--topic-template: ${column.payload} is the event's payload column, which cannot be part of"
                                + " a topic name"));
    }

    @Test
    void otherColumnsAreReadWithTheEventButNeverTheBookkeeping() {
        RelayConfig c = SPEC.resolve(required().flag("message-format", "debezium")
                .flag("debezium-fields", "tenant:header,event_type:envelope:type")
                .flag("topic-template", "orders.${column.region}.${eventType}").build());
        assertThat(DatabaseOptions.table(c).layout().extras()).containsExactly("region", "tenant");
        assertThatThrownBy(() -> SPEC.resolve(required().flag("message-format", "debezium")
                .flag("debezium-fields", "seq:header").build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).containsExactly(
                        "--topic-template/--debezium-fields: column 'seq' is the relay's bookkeeping, not the"
                                + " event's"));
        assertThatThrownBy(() -> SPEC.resolve(required().flag("message-format", "debezium")
                .flag("debezium-fields", "aggregate_id:partition").build()))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.problems()).singleElement()
                        .asString().startsWith("--debezium-fields: ").contains("placement partition is not supported"));
    }
}
