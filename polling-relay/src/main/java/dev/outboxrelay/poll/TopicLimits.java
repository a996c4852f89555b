package dev.outboxrelay.poll;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The largest record batch each topic accepts ({@code max.message.bytes}), looked up once per topic and
 * cached. The producer itself only checks {@code max.request.size}; a record between the two is rejected by the
 * broker asynchronously, after later records of the same key may already be on their way. Knowing the limit up
 * front lets the source hold those later records back until the large one is acknowledged.
 */
interface TopicLimits extends AutoCloseable {

    /**
     * What {@link #maxMessageBytes} answers for a topic that does not exist while the cluster does not create
     * topics on first use: a send would block for {@code max.block.ms} and then fail, so its rows must wait.
     */
    int MISSING = -1;

    /**
     * Limit for {@code topic} in bytes, {@link Integer#MAX_VALUE} when unknown, or {@link #MISSING}. Never blocks
     * for long.
     */
    int maxMessageBytes(String topic);

    @Override
    void close();

    /** No limits known: every record is assumed to fit. */
    static TopicLimits unknown() {
        return new TopicLimits() {
            @Override
            public int maxMessageBytes(String topic) {
                return Integer.MAX_VALUE;
            }

            @Override
            public void close() {
            }
        };
    }

    /** Limits read with an admin client built from the producer's connection settings. */
    static TopicLimits kafka(Map<String, Object> producerProperties) {
        Map<String, Object> adminProps = new HashMap<>();
        producerProperties.forEach((k, v) -> {
            if (AdminClientConfig.configNames().contains(k)) {
                adminProps.put(k, v);
            }
        });
        adminProps.put(AdminClientConfig.CLIENT_ID_CONFIG, "outbox-relay-topic-limits");
        return new AdminTopicLimits(Admin.create(adminProps));
    }

    /** Admin-backed cache; a failed lookup is retried after a minute instead of blocking every batch. */
    final class AdminTopicLimits implements TopicLimits {
        private static final Logger LOG = LoggerFactory.getLogger(TopicLimits.class);
        private static final long RETRY_NANOS = TimeUnit.MINUTES.toNanos(1);
        /** A missing topic is looked up again this often, so its events go out soon after it is created. */
        private static final long MISSING_RETRY_NANOS = TimeUnit.SECONDS.toNanos(5);

        private final Admin admin;
        private final Map<String, int[]> limits = new ConcurrentHashMap<>();
        private final Map<String, Long> failedAt = new ConcurrentHashMap<>();
        private final Map<String, Long> missingAt = new ConcurrentHashMap<>();
        private volatile Boolean clusterCreates;

        private AdminTopicLimits(Admin admin) {
            this.admin = admin;
        }

        @Override
        public int maxMessageBytes(String topic) {
            int[] known = limits.get(topic);
            if (known != null) {
                return known[0];
            }
            Long missing = missingAt.get(topic);
            if (missing != null && System.nanoTime() - missing < MISSING_RETRY_NANOS) {
                return MISSING;
            }
            Long failed = failedAt.get(topic);
            if (failed != null && System.nanoTime() - failed < RETRY_NANOS) {
                return Integer.MAX_VALUE;
            }
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            try {
                Config config = admin.describeConfigs(List.of(resource)).all().get(5, TimeUnit.SECONDS).get(resource);
                ConfigEntry entry = config == null ? null : config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
                int limit = entry == null || entry.value() == null ? Integer.MAX_VALUE : Integer.parseInt(entry.value());
                limits.put(topic, new int[] {limit});
                if (missingAt.remove(topic) != null) {
                    LOG.info("Topic {} exists now; its events go out", topic);
                }
                return limit;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Integer.MAX_VALUE;
            } catch (Exception e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException && !createdOnFirstSend()) {
                    if (missingAt.put(topic, System.nanoTime()) == null) {
                        LOG.warn("Topic {} does not exist and the cluster does not create topics on first use:"
                                + " events routed to it wait, and hold back later events of their keys, until it is"
                                + " created", topic);
                    }
                    return MISSING;
                }
                // Typically a topic that does not exist yet (auto-created on first send): look again later.
                LOG.debug("Could not read max.message.bytes of topic {}: {}", topic, e.toString());
                failedAt.put(topic, System.nanoTime());
                return Integer.MAX_VALUE;
            }
        }

        /**
         * Whether a send creates a missing topic ({@code auto.create.topics.enable}, asked once); when the brokers
         * cannot be asked, assume so, which is the behaviour before this check: the send decides.
         */
        private boolean createdOnFirstSend() {
            if (clusterCreates == null) {
                try {
                    String broker = admin.describeCluster().nodes().get(5, TimeUnit.SECONDS).iterator().next()
                            .idString();
                    ConfigResource resource = new ConfigResource(ConfigResource.Type.BROKER, broker);
                    ConfigEntry entry = admin.describeConfigs(List.of(resource)).all().get(5, TimeUnit.SECONDS)
                            .get(resource).get("auto.create.topics.enable");
                    clusterCreates = entry == null || entry.value() == null || Boolean.parseBoolean(entry.value());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return true;
                } catch (Exception e) {
                    LOG.debug("Could not read auto.create.topics.enable: {}", e.toString());
                    return true;
                }
            }
            return clusterCreates;
        }

        @Override
        public void close() {
            admin.close(java.time.Duration.ofSeconds(5));
        }
    }
}
