package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.publish.ClientProperties;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.header.Header;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the pipeline knows about each topic before it sends to it: the largest record batch the topic accepts
 * ({@code max.message.bytes}, looked up once and cached), or that the topic is unusable now. The producer itself
 * only checks {@code max.request.size}; a record between the two is rejected by the broker asynchronously, after
 * later records of the same key may already be on their way, so knowing the limit lets a source hold those back.
 *
 * <p>A topic is unusable when it does not exist while the cluster does not create topics on first use (a send
 * would block for {@code max.block.ms} and then fail), or after a send to it failed as the topic's fault
 * ({@link FailureClass#TOPIC}, e.g. not authorized). Its events wait with their keys, no attempt counted, and
 * the topic is tried again every {@link #RETRY_UNUSABLE_SECONDS} seconds, so they flow again by themselves
 * within seconds of the topic being created or the relay being authorized.
 */
public interface TopicLimits extends AutoCloseable {

    /** What {@link #maxMessageBytes} answers for a topic whose events must wait now. */
    int UNUSABLE = -1;

    /** How often an unusable topic is looked at again. */
    int RETRY_UNUSABLE_SECONDS = 5;

    /**
     * Limit for {@code topic} in bytes, {@link Integer#MAX_VALUE} when unknown, or {@link #UNUSABLE}. Never
     * blocks for long; thread-safe.
     */
    int maxMessageBytes(String topic);

    /**
     * Records that a send to {@code topic} failed as the topic's fault: it answers {@link #UNUSABLE} for the next
     * {@link #RETRY_UNUSABLE_SECONDS} seconds. Logs one WARN when a topic becomes unusable.
     */
    void unusable(String topic, Throwable cause);

    /**
     * Kafka acknowledged a record on {@code topic}: if the topic had been reported unusable, says once (INFO) that
     * it is usable again. Cheap when no topic is unusable.
     */
    void published(String topic);

    @Override
    void close();

    /**
     * The size the broker will see for {@code record} before compression, rounded up: key, value, header keys and
     * values, and the record format's per-record overhead. Compared with {@link #maxMessageBytes} to tell whether
     * the broker may reject the record.
     */
    static int estimatedSize(ProducerRecord<byte[], byte[]> record) {
        long size = 128 + (record.key() == null ? 0 : record.key().length)
                + (record.value() == null ? 0 : record.value().length);
        for (Header h : record.headers()) {
            size += h.key().length() + (h.value() == null ? 0 : h.value().length) + 8;
        }
        return (int) Math.min(Integer.MAX_VALUE, size);
    }

    /** No limits known: every record is assumed to fit; unusable topics are still remembered. */
    static TopicLimits unknown() {
        return new CachedTopicLimits(null, System::nanoTime);
    }

    /** Limits read with an admin client built from the producer's connection settings. */
    static TopicLimits kafka(Map<String, Object> producerProperties) {
        CachedTopicLimits limits = new CachedTopicLimits(Admin.create(ClientProperties.admin(
                producerProperties, "outbox-relay-topic-limits")), System::nanoTime);
        // Off the sending thread and before the first batch: connecting the admin client and reading whether the
        // cluster creates topics cost the first batch after a start ~100 ms, during which every key waited.
        Thread early = new Thread(limits::createdOnFirstSend, "outbox-relay-topic-limits-connect");
        early.setDaemon(true);
        early.start();
        return limits;
    }

    /** Admin-backed cache (no lookups without an admin); a failed lookup is retried after a minute. */
    final class CachedTopicLimits implements TopicLimits {
        private static final Logger LOG = LoggerFactory.getLogger(TopicLimits.class);
        private static final long RETRY_NANOS = TimeUnit.MINUTES.toNanos(1);
        private static final long UNUSABLE_NANOS = TimeUnit.SECONDS.toNanos(RETRY_UNUSABLE_SECONDS);

        private final Admin admin;
        private final Map<String, Integer> limits = new ConcurrentHashMap<>();
        private final Map<String, Long> failedAt = new ConcurrentHashMap<>();
        /** Unusable topics and since when (nanoTime of the latest failure); removed once a send may go again. */
        private final Map<String, Long> unusableAt = new ConcurrentHashMap<>();
        /** Topics reported unusable (one WARN) and not yet published to since (one INFO then). */
        private final Set<String> reported = ConcurrentHashMap.newKeySet();
        private final LongSupplier nanoClock;
        private volatile Boolean clusterCreates;

        CachedTopicLimits(Admin admin, LongSupplier nanoClock) {
            this.admin = admin;
            this.nanoClock = nanoClock;
        }

        @Override
        public int maxMessageBytes(String topic) {
            Long unusable = unusableAt.get(topic);
            if (unusable != null) {
                if (nanoClock.getAsLong() - unusable < UNUSABLE_NANOS) {
                    return UNUSABLE;
                }
                limits.remove(topic); // look again: it may have been created or recreated meanwhile
            }
            Integer known = limits.get(topic);
            if (known != null) {
                usableAgain(topic);
                return known;
            }
            if (admin == null) {
                usableAgain(topic);
                return Integer.MAX_VALUE;
            }
            Long failed = failedAt.get(topic);
            if (failed != null && nanoClock.getAsLong() - failed < RETRY_NANOS) {
                usableAgain(topic);
                return Integer.MAX_VALUE;
            }
            return lookUp(topic);
        }

        private int lookUp(String topic) {
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
            try {
                Config config = admin.describeConfigs(List.of(resource)).all().get(5, TimeUnit.SECONDS).get(resource);
                ConfigEntry entry = config == null ? null : config.get(TopicConfig.MAX_MESSAGE_BYTES_CONFIG);
                int limit = entry == null || entry.value() == null ? Integer.MAX_VALUE
                        : Integer.parseInt(entry.value());
                limits.put(topic, limit);
                usableAgain(topic);
                return limit;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Integer.MAX_VALUE;
            } catch (Exception e) {
                if (e.getCause() instanceof UnknownTopicOrPartitionException && !createdOnFirstSend()) {
                    unusableAt.put(topic, nanoClock.getAsLong());
                    if (reported.add(topic)) {
                        LOG.atWarn().addKeyValue("topic", topic).log("Topic {} does not exist and the cluster"
                                + " does not create topics on first use: events routed to it wait, and hold back later"
                                + " events of their keys, until it is created", topic);
                    }
                    return UNUSABLE;
                }
                // Typically a topic that does not exist yet (auto-created on first send): look again later.
                LOG.debug("Could not read max.message.bytes of topic {}: {}", topic, e.toString());
                failedAt.put(topic, nanoClock.getAsLong());
                usableAgain(topic);
                return Integer.MAX_VALUE;
            }
        }

        @Override
        public void unusable(String topic, Throwable cause) {
            unusableAt.put(topic, nanoClock.getAsLong());
            if (reported.add(topic)) {
                LOG.atWarn().addKeyValue("topic", topic).log("Cannot publish to topic {} ({}): its events wait, and"
                        + " hold back later events of their keys, retried every {} s; other topics go on", topic,
                        cause.getClass().getSimpleName(), RETRY_UNUSABLE_SECONDS);
            }
        }

        /** A topic that was unusable may be sent to again (whether it works, {@link #published} tells). */
        private void usableAgain(String topic) {
            if (!unusableAt.isEmpty()) {
                unusableAt.remove(topic);
            }
        }

        @Override
        public void published(String topic) {
            if (!reported.isEmpty() && reported.remove(topic)) {
                LOG.atInfo().addKeyValue("topic", topic).log("Topic {} is usable again; its events go out", topic);
            }
        }

        /**
         * Whether a send creates a missing topic ({@code auto.create.topics.enable}, asked once); when the brokers
         * cannot be asked, assume so, which is the behaviour before this check: the send decides.
         */
        boolean createdOnFirstSend() {
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
            if (admin != null) {
                admin.close(java.time.Duration.ofSeconds(5));
            }
        }
    }
}
