package dev.outboxrelay.core.publish;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * What {@code run --delivery exactly-once} asks the cluster before it starts, so that a cluster that cannot hold
 * transactions is refused with one line instead of a producer that waits forever for a transaction coordinator:
 * the transaction state log must fit the brokers, and the state topic must exist compacted (it is created if
 * missing). A cluster that does not answer is not a reason to refuse: the relay starts and waits for it.
 */
public final class ExactlyOnceCheck {

    /** The broker settings Kafka's transaction coordinator needs. */
    static final String TXN_LOG_RF = "transaction.state.log.replication.factor";
    static final String TXN_LOG_MIN_ISR = "transaction.state.log.min.isr";
    static final String TXN_TOPIC = "__transaction_state";

    /** What the check found. */
    public sealed interface Result {
    }

    /** The cluster can run exactly-once delivery. */
    public record Ready(int brokers, boolean stateTopicCreated) implements Result {
    }

    /** The cluster cannot: refuse to start with this line. */
    public record Refused(String problem) implements Result {
    }

    /** The cluster did not answer: start and wait for it. */
    public record Unreachable(String why) implements Result {
    }

    private ExactlyOnceCheck() {
    }

    /** Asks the cluster of {@code settings} (which must be exactly-once settings) within {@code timeout} per call. */
    public static Result check(ProducerSettings settings, Duration timeout) {
        ExactlyOnce eos = settings.exactlyOnce().orElseThrow(() -> new IllegalArgumentException("not exactly-once"));
        Map<String, Object> props = ClientProperties.admin(settings.producerProperties(),
                "outbox-relay-exactly-once-check");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) timeout.toMillis());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(timeout.toMillis(), 30_000));
        try (Admin admin = Admin.create(props)) {
            Collection<Node> nodes;
            try {
                nodes = admin.describeCluster().nodes().get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                return new Unreachable(cause(e).getClass().getSimpleName());
            }
            int brokers = nodes.size();
            if (brokers == 0) {
                return new Unreachable("no brokers");
            }
            ConfigResource broker = new ConfigResource(ConfigResource.Type.BROKER,
                    String.valueOf(nodes.iterator().next().id()));
            Config config = admin.describeConfigs(List.of(broker)).all().get().get(broker);
            boolean txnLogExists = admin.listTopics(new org.apache.kafka.clients.admin.ListTopicsOptions()
                    .listInternal(true)).names().get().contains(TXN_TOPIC);
            if (!txnLogExists) {
                for (String name : List.of(TXN_LOG_RF, TXN_LOG_MIN_ISR)) {
                    int needed = intValue(config, name);
                    if (needed > brokers) {
                        return new Refused("Kafka cannot hold transactions: " + name + "=" + needed + " but the"
                                + " cluster has " + brokers + " broker(s); lower it on the brokers, or run with"
                                + " --delivery at-least-once");
                    }
                }
            }
            return stateTopic(admin, eos.stateTopic(), brokers);
        } catch (ExecutionException e) {
            Throwable cause = cause(e);
            if (cause instanceof org.apache.kafka.common.errors.AuthorizationException) {
                return new Refused("exactly-once delivery cannot check the cluster: " + cause.getClass().getSimpleName()
                        + ": " + cause.getMessage());
            }
            return new Unreachable(cause.getClass().getSimpleName());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Unreachable("interrupted");
        }
    }

    private static Result stateTopic(Admin admin, String topic, int brokers)
            throws ExecutionException, InterruptedException {
        try {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames().get().get(topic);
            ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            String policy = admin.describeConfigs(List.of(r)).all().get().get(r)
                    .get(TopicConfig.CLEANUP_POLICY_CONFIG).value();
            if (!policy.contains(TopicConfig.CLEANUP_POLICY_COMPACT) || policy.contains(TopicConfig.CLEANUP_POLICY_DELETE)) {
                return new Refused("--state-topic " + topic + " has cleanup.policy=" + policy + ": it must be compact"
                        + " only, or retention could delete the position the relay restarts from");
            }
            return new Ready(brokers, d == null);
        } catch (ExecutionException e) {
            if (!(cause(e) instanceof UnknownTopicOrPartitionException)) {
                throw e;
            }
        }
        NewTopic create = new NewTopic(topic, 1, (short) Math.min(3, brokers)).configs(Map.of(
                TopicConfig.CLEANUP_POLICY_CONFIG, TopicConfig.CLEANUP_POLICY_COMPACT,
                // Small segments: only closed segments are compacted, and a restart reads back from the end.
                TopicConfig.SEGMENT_BYTES_CONFIG, String.valueOf(16 * 1024 * 1024)));
        try {
            admin.createTopics(List.of(create)).all().get();
        } catch (ExecutionException e) {
            if (!(cause(e) instanceof TopicExistsException)) {
                Throwable c = cause(e);
                return new Refused("--state-topic " + topic + " does not exist and cannot be created ("
                        + c.getClass().getSimpleName() + "): create it with cleanup.policy=compact");
            }
        }
        return new Ready(brokers, true);
    }

    private static int intValue(Config config, String name) {
        var entry = config.get(name);
        return entry == null || entry.value() == null ? 1 : Integer.parseInt(entry.value());
    }

    private static Throwable cause(Exception e) {
        return e.getCause() != null ? e.getCause() : e;
    }

    /** For a log line: the check's result as shown to operators. */
    public static Optional<String> refusal(Result result) {
        return result instanceof Refused r ? Optional.of(r.problem()) : Optional.empty();
    }
}
