package dev.outboxrelay.bench;

import dev.outboxrelay.testkit.ReadRecord;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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

    private final KafkaConsumer<String, byte[]> consumer;
    private final String topic;
    private final Thread thread;
    private final SeqTimes firstReceived = new SeqTimes();
    // What the verdict needs, per record received, in columns of primitives: a list of objects survived every
    // young collection of the bench JVM (millions per run), which made its GC pauses 20-70 ms every few seconds
    // while measuring, and every pause delayed the events received during it.
    private long[] seqs = new long[1 << 16];
    private int[] keyIds = new int[1 << 16];
    private int[] partitions = new int[1 << 16];
    private long[] offsets = new long[1 << 16];
    private int count;
    private final Map<String, Integer> keyIdByName = new HashMap<>();
    private final List<String> keyNames = new ArrayList<>();
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
                // What an exactly-once consumer sees (issue 27); the same as read_uncommitted for the others,
                // which write no transactions.
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed",
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
                        add(seq, r.key(), r.partition(), r.offset());
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
        List<ReadRecord> records = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            String key = keyIds[i] < 0 ? null : keyNames.get(keyIds[i]);
            records.add(new ReadRecord(topic, partitions[i], offsets[i], key, null,
                    Map.of(ReadRecord.ID_HEADER, Long.toString(seqs[i])), List.of(), 0));
        }
        return records;
    }

    private void add(long seq, String key, int partition, long offset) {
        if (count == seqs.length) {
            int size = count * 2;
            seqs = Arrays.copyOf(seqs, size);
            keyIds = Arrays.copyOf(keyIds, size);
            partitions = Arrays.copyOf(partitions, size);
            offsets = Arrays.copyOf(offsets, size);
        }
        seqs[count] = seq;
        keyIds[count] = key == null ? -1 : keyIdByName.computeIfAbsent(key, k -> {
            keyNames.add(k);
            return keyNames.size() - 1;
        });
        partitions[count] = partition;
        offsets[count] = offset;
        count++;
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
