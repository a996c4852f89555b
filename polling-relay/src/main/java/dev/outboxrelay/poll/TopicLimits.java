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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The largest record batch each topic accepts ({@code max.message.bytes}), looked up once per topic and
 * cached. The producer itself only checks {@code max.request.size}; a record between the two is rejected by the
 * broker asynchronously, after later records of the same key may already be on their way. Knowing the limit up
 * front lets the source hold those later records back until the large one is acknowledged.
 */
interface TopicLimits extends AutoCloseable {

    /** Limit for {@code topic} in bytes, or {@link Integer#MAX_VALUE} when unknown. Never blocks for long. */
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

        private final Admin admin;
        private final Map<String, int[]> limits = new ConcurrentHashMap<>();
        private final Map<String, Long> failedAt = new ConcurrentHashMap<>();

        private AdminTopicLimits(Admin admin) {
            this.admin = admin;
        }

        @Override
        public int maxMessageBytes(String topic) {
            int[] known = limits.get(topic);
            if (known != null) {
                return known[0];
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
                return limit;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Integer.MAX_VALUE;
            } catch (Exception e) {
                // Typically a topic that does not exist yet (auto-created on first send): look again later.
                LOG.debug("Could not read max.message.bytes of topic {}: {}", topic, e.toString());
                failedAt.put(topic, System.nanoTime());
                return Integer.MAX_VALUE;
            }
        }

        @Override
        public void close() {
            admin.close(java.time.Duration.ofSeconds(5));
        }
    }
}
