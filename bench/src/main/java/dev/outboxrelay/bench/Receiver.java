package dev.outboxrelay.bench;

import dev.outboxrelay.testkit.ReadRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;

/**
 * The downstream consumer: reads the scenario's topic from the beginning on its own thread and keeps, per
 * record, only what the verdict needs (sequence number, key, partition, offset) plus the receive time of each
 * sequence number's first copy. Kept lean because it shares the CPU with the contender while it measures.
 */
final class Receiver implements AutoCloseable {

    private record Received(long seq, String key, int partition, long offset) {
    }

    private final KafkaConsumer<String, byte[]> consumer;
    private final String topic;
    private final Thread thread;
    private final SeqTimes firstReceived = new SeqTimes();
    private final List<Received> records = new ArrayList<>();
    private long distinct;
    private long lastNewNanos;
    private long unidentified;
    private volatile boolean stop;
    private volatile Throwable failure;

    Receiver(String bootstrap, String topic, int partitions) {
        this.topic = topic;
        this.consumer = new KafkaConsumer<>(Map.<String, Object>of(
                ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ConsumerConfig.CLIENT_ID_CONFIG, "bench-receiver-" + topic,
                ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class,
                ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class,
                ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false,
                ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 5000,
                ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 50));
        List<TopicPartition> all = new ArrayList<>();
        for (int p = 0; p < partitions; p++) {
            all.add(new TopicPartition(topic, p));
        }
        consumer.assign(all);
        consumer.seekToBeginning(all);
        this.thread = new Thread(this::loop, "bench-receiver");
        thread.setDaemon(true);
        thread.start();
    }

    private void loop() {
        try {
            while (!stop) {
                var batch = consumer.poll(Duration.ofMillis(100));
                if (batch.isEmpty()) {
                    continue;
                }
                long now = System.nanoTime();
                synchronized (this) {
                    for (ConsumerRecord<String, byte[]> r : batch) {
                        long seq = Payloads.seqOf(r.value());
                        if (seq < 0) {
                            unidentified++;
                            continue;
                        }
                        records.add(new Received(seq, r.key(), r.partition(), r.offset()));
                        if (firstReceived.setFirst(seq, now)) {
                            distinct++;
                            lastNewNanos = now;
                        }
                    }
                    notifyAll();
                }
            }
        } catch (RuntimeException e) {
            if (!stop) {
                failure = e;
            }
        } finally {
            consumer.close();
        }
    }

    /** Distinct events received so far. */
    synchronized long distinct() {
        return distinct;
    }

    /** When the newest distinct event arrived ({@code System.nanoTime()}). */
    synchronized long lastNewNanos() {
        return lastNewNanos;
    }

    /** When event {@code seq} first arrived; 0 if it did not. */
    long firstReceivedNanos(long seq) {
        synchronized (this) {
            return firstReceived.get(seq);
        }
    }

    /** Waits until {@code count} distinct events arrived; false on timeout. */
    synchronized boolean awaitDistinct(long count, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (distinct < count) {
            if (failure != null) {
                throw new IllegalStateException("consumer of " + topic + " failed", failure);
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return false;
            }
            wait(Math.max(1, left / 1_000_000));
        }
        return true;
    }

    /**
     * Everything read, as test-kit records whose {@code id} header is the sequence number (values dropped), for
     * {@link dev.outboxrelay.testkit.DeliveryReport}.
     */
    synchronized List<ReadRecord> records() {
        return records.stream()
                .map(r -> new ReadRecord(topic, r.partition(), r.offset(), r.key(), null,
                        Map.of(ReadRecord.ID_HEADER, Long.toString(r.seq())), List.of(), 0))
                .collect(Collectors.toList());
    }

    /** Records whose value carried no sequence number (not ours; reported, never counted as delivered). */
    synchronized long unidentified() {
        return unidentified;
    }

    @Override
    public void close() {
        stop = true;
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
