package dev.outboxrelay.testkit;

import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * ACLs on a broker from {@link TestKafka#startWithAuthorizer}, set through its super-user admin client: what a relay
 * needs to produce to one topic, given and taken back.
 */
public final class KafkaAcls {

    private final TestKafka kafka;

    private KafkaAcls(TestKafka kafka) {
        this.kafka = kafka;
    }

    /** The ACLs of {@code kafka}. */
    public static KafkaAcls of(TestKafka kafka) {
        return new KafkaAcls(kafka);
    }

    /**
     * Lets {@code user} produce to {@code topic} as the relay does: WRITE and DESCRIBE, and DESCRIBE_CONFIGS for
     * reading the topic's size limit.
     */
    public void grantProducer(String user, String topic) {
        try {
            kafka.admin().createAcls(producerAcls(user, topic)).all().get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while granting " + topic, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Could not grant " + user + " access to " + topic, e);
        }
    }

    /** Takes back what {@link #grantProducer} gave. */
    public void revokeProducer(String user, String topic) {
        try {
            kafka.admin().deleteAcls(producerAcls(user, topic).stream().map(AclBinding::toFilter).toList()).all()
                    .get(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while revoking " + topic, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Could not revoke " + user + "'s access to " + topic, e);
        }
    }

    /**
     * Takes back what the idempotent producer needs to get a producer id: the cluster's {@code IDEMPOTENT_WRITE} and
     * WRITE on {@code topic} (which Kafka also accepts for it), keeping DESCRIBE, so that the topic's metadata is still
     * served. A producer that already has an id fails its sends with {@code TopicAuthorizationException}; a new one is
     * refused its id, fatally for it: {@code ClusterAuthorizationException}.
     */
    public void revokeIdempotentProducer(String user, String topic) {
        change(false, idempotentAcls(user, topic), "revoke " + user + "'s idempotent write");
    }

    /** {@link #grantProducer} and the cluster's {@code IDEMPOTENT_WRITE}; gives back {@link #revokeIdempotentProducer}. */
    public void grantIdempotentProducer(String user, String topic) {
        grantProducer(user, topic);
        change(true, idempotentAcls(user, topic), "grant " + user + " idempotent write");
    }

    private void change(boolean grant, List<AclBinding> bindings, String what) {
        try {
            if (grant) {
                kafka.admin().createAcls(bindings).all().get(30, TimeUnit.SECONDS);
            } else {
                kafka.admin().deleteAcls(bindings.stream().map(AclBinding::toFilter).toList()).all()
                        .get(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted: " + what, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Could not " + what, e);
        }
    }

    private static List<AclBinding> idempotentAcls(String user, String topic) {
        return List.of(new AclBinding(new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
                        new AccessControlEntry("User:" + user, "*", AclOperation.IDEMPOTENT_WRITE,
                                AclPermissionType.ALLOW)),
                new AclBinding(new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL),
                        new AccessControlEntry("User:" + user, "*", AclOperation.WRITE, AclPermissionType.ALLOW)));
    }

    private static List<AclBinding> producerAcls(String user, String topic) {
        ResourcePattern pattern = new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL);
        return List.of(AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.DESCRIBE_CONFIGS).stream()
                .map(op -> new AclBinding(pattern, new AccessControlEntry("User:" + user, "*", op,
                        AclPermissionType.ALLOW))).toList();
    }
}
