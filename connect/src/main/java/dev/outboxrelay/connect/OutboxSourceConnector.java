package dev.outboxrelay.connect;

import dev.outboxrelay.core.publish.ProducerSettings;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.Config;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigValue;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.source.ConnectorTransactionBoundaries;
import org.apache.kafka.connect.source.ExactlyOnceSupport;
import org.apache.kafka.connect.source.SourceConnector;

/**
 * The relay's poll source as a Kafka Connect source connector. {@code tasks.max} = N splits the outbox table into N
 * key-hash shards, one per task, so each aggregate belongs to exactly one task and keeps its order; Connect spreads
 * the tasks over its workers and moves them when a worker dies. See {@code docs/kafka-connect.md}.
 */
public final class OutboxSourceConnector extends SourceConnector {

    /** Task config keys the connector adds: which shard a task reads, of how many. */
    static final String TASK_INDEX = "outbox.task.index";
    static final String TASK_COUNT = "outbox.task.count";
    /** The converter every record must pass unchanged through, for keys, values and headers. */
    static final String BYTE_ARRAY = "org.apache.kafka.connect.converters.ByteArrayConverter";
    static final List<String> CONVERTERS = List.of("key.converter", "value.converter", "header.converter");
    private static final String PRODUCER_OVERRIDE = "producer.override.";
    /** Connect's connector key asking for exactly-once, and the value that makes the worker insist on it. */
    static final String EXACTLY_ONCE_SUPPORT = "exactly.once.support";
    static final String REQUIRED = "required";

    /** True when the connector config requires exactly-once (then the worker runs it only with it). */
    static boolean exactlyOnceRequired(Map<String, String> props) {
        return REQUIRED.equalsIgnoreCase(props.get(EXACTLY_ONCE_SUPPORT));
    }

    private Map<String, String> props;

    @Override
    public String version() {
        return Version.get();
    }

    @Override
    public void start(Map<String, String> props) {
        List<String> problems = problems(props);
        if (!problems.isEmpty()) {
            throw new ConnectException("Invalid outbox-relay connector configuration: " + String.join("; ", problems));
        }
        this.props = Map.copyOf(props);
    }

    @Override
    public Class<? extends Task> taskClass() {
        return OutboxSourceTask.class;
    }

    @Override
    public List<Map<String, String>> taskConfigs(int maxTasks) {
        List<Map<String, String>> configs = new ArrayList<>(maxTasks);
        for (int i = 0; i < maxTasks; i++) {
            Map<String, String> task = new HashMap<>(props);
            task.put(TASK_INDEX, Integer.toString(i));
            task.put(TASK_COUNT, Integer.toString(maxTasks));
            configs.add(task);
        }
        return configs;
    }

    @Override
    public void stop() {
        props = null;
    }

    @Override
    public ConfigDef config() {
        return ConnectorOptions.configDef();
    }

    /**
     * Supported: with {@code exactly.once.support=required} each task puts the ids of the rows it returned and has
     * not marked yet into the source offset of its records, which the worker commits in the records' transaction;
     * a task that starts marks those rows instead of publishing them again. Needs {@code transaction.boundary=poll}
     * (the default), checked by {@link #validate}.
     */
    @Override
    public ExactlyOnceSupport exactlyOnceSupport(Map<String, String> connectorConfig) {
        return ExactlyOnceSupport.SUPPORTED;
    }

    @Override
    public ConnectorTransactionBoundaries canDefineTransactionBoundaries(Map<String, String> connectorConfig) {
        return ConnectorTransactionBoundaries.UNSUPPORTED;
    }

    /** Connect's per-key validation, plus the relay's cross-option checks and the converters the records need. */
    @Override
    public Config validate(Map<String, String> connectorConfigs) {
        Config config = super.validate(connectorConfigs);
        Map<String, ConfigValue> byName = new HashMap<>();
        config.configValues().forEach(v -> byName.put(v.name(), v));
        List<ConfigValue> values = new ArrayList<>(config.configValues());
        for (String problem : connectorProblems(connectorConfigs)) {
            ConfigValue v = new ConfigValue(problem.substring(0, problem.indexOf(':')));
            v.addErrorMessage(problem);
            values.add(v);
        }
        if (values.stream().noneMatch(v -> !v.errorMessages().isEmpty())) {
            // Per-key checks passed: the cross-option checks, reported on the connector's first option.
            for (String problem : ConnectorOptions.problems(connectorConfigs)) {
                byName.get(ConnectorOptions.SPEC.options().get(0).name()).addErrorMessage(problem);
            }
        }
        return new Config(values);
    }

    private static List<String> problems(Map<String, String> props) {
        List<String> problems = new ArrayList<>(connectorProblems(props));
        problems.addAll(ConnectorOptions.problems(props));
        return problems;
    }

    /**
     * What the relay needs from Connect's own keys: records written byte for byte (no converter may re-encode them),
     * and under exactly-once one transaction per poll, which is what the offsets describe.
     */
    static List<String> connectorProblems(Map<String, String> props) {
        List<String> problems = new ArrayList<>();
        for (String key : CONVERTERS) {
            if (!BYTE_ARRAY.equals(props.get(key))) {
                problems.add(key + ": must be " + BYTE_ARRAY + " in the connector's configuration (the records are"
                        + " the relay's bytes; another converter would re-encode them), was "
                        + (props.get(key) == null ? "not set" : props.get(key)));
            }
        }
        // The worker's producer publishes: the connector cannot see the worker's settings (keep Kafka's defaults,
        // acks=all and idempotence), but it refuses overrides of its own that would weaken delivery.
        Map<String, String> overrides = new java.util.TreeMap<>();
        props.forEach((k, v) -> {
            if (k.startsWith(PRODUCER_OVERRIDE) && v != null) {
                overrides.put(k.substring(PRODUCER_OVERRIDE.length()), v);
            }
        });
        problems.addAll(ProducerSettings.deliveryProblems(PRODUCER_OVERRIDE, overrides));
        String boundary = props.get("transaction.boundary");
        if (exactlyOnceRequired(props) && boundary != null
                && !"poll".equalsIgnoreCase(boundary)) {
            problems.add("transaction.boundary: must be poll (the default) for exactly-once, was " + boundary);
        }
        return problems;
    }
}
