package dev.outboxrelay.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Reads back what was published to a topic, for assertions: all partitions, from the beginning, without a
 * consumer group (nothing is committed, so reading twice sees the same records).
 *
 * <p>Every read waits until its goal is met (a record count, a set of ids) or the timeout passes, and then
 * also drains every partition up to its end offset as of that moment, so duplicates that are already in
 * the topic are part of the result. On timeout it returns what it has, and the caller's assertion reports
 * what is missing. Each call uses a fresh consumer, so readers are cheap and thread-safe.
 *
 * <p>The consumer uses {@code isolation.level=read_committed}: records of aborted transactions are never
 * "published" from the relay's point of view. Pass overrides to change that.
 */
public final class TopicReader {

    private static final Duration POLL = Duration.ofMillis(100);
    private static final Duration DRAIN_LIMIT = Duration.ofSeconds(10);

    private final Map<String, Object> config;

    /** A reader for the given bootstrap servers. */
    public TopicReader(String bootstrapServers) {
        this(bootstrapServers, Map.of());
    }

    /** A reader whose consumer settings are overridden by {@code consumerOverrides}. */
    public TopicReader(String bootstrapServers, Map<String, Object> consumerOverrides) {
        Map<String, Object> c = new HashMap<>();
        c.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        c.put(ConsumerConfig.CLIENT_ID_CONFIG, "outbox-test-kit-reader");
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        // Reading must not create the topic it waits for.
        c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        // Short waits keep polling responsive; a short metadata age notices partitions added meanwhile.
        c.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 100);
        c.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 1000);
        c.putAll(consumerOverrides);
        this.config = Map.copyOf(c);
    }

    /** A reader for {@code kafka}. */
    public static TopicReader of(TestKafka kafka) {
        return new TopicReader(kafka.bootstrapServers(), kafka.clientProperties());
    }

    /**
     * Reads until at least {@code expectedCount} records arrived (then drains to the end offsets) or the
     * timeout passed; may return more than expected, or fewer on timeout.
     */
    public List<ReadRecord> read(String topic, int expectedCount, Duration timeout) {
        int[] seen = {0};
        return readUntil(topic, r -> ++seen[0] >= expectedCount, () -> seen[0] >= expectedCount, timeout);
    }

    /**
     * Reads until a record with each of {@code expectedIds} in its {@value ReadRecord#ID_HEADER} header arrived
     * (then drains to the end offsets) or the timeout passed. Returns every record read, including records
     * without an id, with other ids and duplicates.
     */
    public List<ReadRecord> readUntilIds(String topic, Set<String> expectedIds, Duration timeout) {
        Set<String> missing = new HashSet<>(expectedIds);
        return readUntil(topic, r -> {
            missing.remove(r.id());
            return missing.isEmpty();
        }, missing::isEmpty, timeout);
    }

    /** Everything currently in the topic (up to its end offsets now); empty if the topic does not exist. */
    public List<ReadRecord> readAll(String topic) {
        return read(topic, 0, Duration.ofSeconds(5));
    }

    /** Incremental goal so that checking it stays O(1) per record even for large reads. */
    private interface Goal {
        boolean accept(ReadRecord record);
    }

    private List<ReadRecord> readUntil(String topic, Goal goal, BooleanSupplier reachedInitially,
                                       Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        List<ReadRecord> out = new ArrayList<>();
        boolean reached = reachedInitially.getAsBoolean();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config)) {
            Set<TopicPartition> assigned = new HashSet<>();
            long nextRefresh = 0;
            while (!reached) {
                long now = System.nanoTime();
                if (now >= nextRefresh) {
                    refreshAssignment(consumer, topic, assigned);
                    // Look for the topic often while it is missing, and for added partitions now and then.
                    nextRefresh = now + (assigned.isEmpty() ? POLL : Duration.ofSeconds(1)).toNanos();
                }
                if (assigned.isEmpty()) {
                    sleep(POLL);
                } else {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                        ReadRecord record = ReadRecord.from(r);
                        out.add(record);
                        reached |= goal.accept(record);
                    }
                }
                if (!reached && System.nanoTime() >= deadline) {
                    return out;
                }
            }
            if (assigned.isEmpty()) {
                refreshAssignment(consumer, topic, assigned);
            }
            drainToEnd(consumer, assigned, out);
        }
        return out;
    }

    private static void refreshAssignment(KafkaConsumer<byte[], byte[]> consumer, String topic, Set<TopicPartition> assigned) {
        List<PartitionInfo> partitions;
        try {
            partitions = consumer.partitionsFor(topic, Duration.ofSeconds(1));
        } catch (TimeoutException brokerUnreachable) {
            return;
        }
        Set<TopicPartition> added = new HashSet<>();
        for (PartitionInfo p : partitions == null ? List.<PartitionInfo>of() : partitions) {
            TopicPartition tp = new TopicPartition(p.topic(), p.partition());
            if (assigned.add(tp)) {
                added.add(tp);
            }
        }
        if (!added.isEmpty()) {
            consumer.assign(assigned);
            consumer.seekToBeginning(added);
        }
    }

    private static void drainToEnd(KafkaConsumer<byte[], byte[]> consumer, Set<TopicPartition> assigned,
                                   List<ReadRecord> out) {
        if (assigned.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + DRAIN_LIMIT.toNanos();
        // Under read_committed these are last stable offsets, which is where a committed reader stops.
        Map<TopicPartition, Long> end = consumer.endOffsets(assigned, DRAIN_LIMIT);
        while (System.nanoTime() < deadline && behind(consumer, end)) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL)) {
                out.add(ReadRecord.from(r));
            }
        }
    }

    private static boolean behind(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey(), DRAIN_LIMIT) < e.getValue()) {
                return true;
            }
        }
        return false;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while reading", e);
        }
    }
}
