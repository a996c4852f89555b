package dev.outboxrelay.testkit;

import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;

/**
 * Whether a new topic's partitions can take records yet. A leader in the topic's metadata is not enough: the
 * controller assigns it before the broker has created the partition, and a produce in between is answered
 * {@code NOT_LEADER_OR_FOLLOWER}, after which an idempotent producer was seen to retry its first batch on
 * {@code OUT_OF_ORDER_SEQUENCE_NUMBER} until its delivery timeout. A partition whose log the leader reports
 * ({@code describeLogDirs}) has been created there.
 */
final class HostedPartitions {

    private HostedPartitions() {
    }

    /** True when every partition of {@code descriptions} has a leader that hosts its log. */
    static boolean all(Admin admin, Map<String, TopicDescription> descriptions)
            throws InterruptedException, ExecutionException, TimeoutException {
        Set<Integer> leaders = new java.util.HashSet<>();
        Set<TopicPartition> wanted = new java.util.HashSet<>();
        for (TopicDescription d : descriptions.values()) {
            for (var p : d.partitions()) {
                if (p.leader() == null || p.leader().isEmpty()) {
                    return false;
                }
                leaders.add(p.leader().id());
                wanted.add(new TopicPartition(d.name(), p.partition()));
            }
        }
        Set<TopicPartition> hosted = admin.describeLogDirs(leaders).allDescriptions().get(10, TimeUnit.SECONDS)
                .values().stream().flatMap(dirs -> dirs.values().stream())
                .flatMap(dir -> dir.replicaInfos().keySet().stream()).collect(Collectors.toSet());
        return hosted.containsAll(wanted);
    }
}
