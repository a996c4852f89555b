package dev.outboxrelay.demo;

import dev.outboxrelay.testkit.ReadRecord;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Plays the downstream service: reads the topic from the beginning as it fills, keeps what the verdict needs
 * (topic, partition, offset, key, id) and measures commit-to-receive latency of each event's first delivery.
 */
final class LiveConsumer implements AutoCloseable {

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final Thread thread = new Thread(this::consume, "demo-consumer");
    private final List<ReadRecord> records = new ArrayList<>();
    private final Set<String> seen = new HashSet<>();
    private final Object lock = new Object();
    /** Commit times of ids not received yet, and receive times of ids received before their commit was noted. */
    private final Map<String, Long> committedAt = new HashMap<>();
    private final Map<String, Long> receivedEarly = new HashMap<>();
    private final LongList window = new LongList();
    private final LongList all = new LongList();
    private volatile boolean running = true;
    private volatile RuntimeException failure;

    LiveConsumer(String bootstrap, String topic) {
        Map<String, Object> config = Map.of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.CLIENT_ID_CONFIG, "outbox-relay-demo-consumer",
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50);
        consumer = new KafkaConsumer<>(config);
        List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
    }

    void start() {
        thread.start();
    }

    /** The writer committed these ids at {@code commitNanos}. */
    void committed(List<String> ids, long commitNanos) {
        synchronized (lock) {
            for (String id : ids) {
                Long received = receivedEarly.remove(id);
                if (received == null) {
                    committedAt.put(id, commitNanos);
                } else {
                    record(Math.max(0, received - commitNanos));
                }
            }
        }
    }

    private void consume() {
        try {
            while (running) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                    received(r, System.nanoTime());
                }
            }
        } catch (RuntimeException e) {
            failure = e;
        } finally {
            consumer.close(Duration.ofSeconds(5));
        }
    }

    private void received(ConsumerRecord<byte[], byte[]> r, long now) {
        Header header = r.headers().lastHeader(ReadRecord.ID_HEADER);
        String id = header == null || header.value() == null ? null
                : new String(header.value(), StandardCharsets.UTF_8);
        String key = r.key() == null ? null : new String(r.key(), StandardCharsets.UTF_8);
        Map<String, String> headers = new HashMap<>();
        headers.put(ReadRecord.ID_HEADER, id);
        synchronized (lock) {
            // The value is not kept: the verdict needs only ids, keys and positions.
            records.add(new ReadRecord(r.topic(), r.partition(), r.offset(), key, null, headers, List.of(),
                    r.timestamp()));
            if (id != null && seen.add(id)) {
                Long commit = committedAt.remove(id);
                if (commit == null) {
                    receivedEarly.put(id, now);
                } else {
                    record(now - commit);
                }
            }
        }
    }

    private void record(long latencyNanos) {
        window.add(latencyNanos / 1000);
        all.add(latencyNanos / 1000);
    }

    /** Distinct event ids received so far. */
    long uniqueReceived() {
        synchronized (lock) {
            return seen.size();
        }
    }

    /** Latencies measured since the last call. */
    Percentiles takeWindow() {
        synchronized (lock) {
            Percentiles p = new Percentiles(window.toArray());
            window.clear();
            return p;
        }
    }

    Percentiles allLatencies() {
        synchronized (lock) {
            return new Percentiles(all.toArray());
        }
    }

    /** Every record received, for the verdict. */
    List<ReadRecord> records() {
        synchronized (lock) {
            return List.copyOf(records);
        }
    }

    /** Stops reading; rethrows what made the consumer fail, if anything. */
    void stop() throws InterruptedException {
        running = false;
        if (thread.isAlive()) {
            thread.join();
        } else if (thread.getState() == Thread.State.NEW) {
            consumer.close(Duration.ofSeconds(5));
        }
        if (failure != null) {
            throw failure;
        }
    }

    @Override
    public void close() throws InterruptedException {
        if (running) {
            running = false;
            stop();
        }
    }

    /** A growable array of longs: a million latencies stay a few megabytes. */
    private static final class LongList {
        private long[] values = new long[1024];
        private int size;

        void add(long v) {
            if (size == values.length) {
                values = Arrays.copyOf(values, size * 2);
            }
            values[size++] = v;
        }

        long[] toArray() {
            return Arrays.copyOf(values, size);
        }

        void clear() {
            size = 0;
        }
    }
}
