package dev.outboxrelay.verify;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads one topic from a point in time up to its end offsets as of the start, partition by partition in
 * offset order, without a consumer group (nothing is committed). Reports progress at most once per second.
 */
final class TopicScan {

    /** Receives each record read. */
    interface Sink {
        void accept(ConsumerRecord<byte[], byte[]> record);
    }

    private static final Duration TIMEOUT = Duration.ofSeconds(30);
    /** Give up when no record arrives for this long although the end was not reached (broker gone). */
    private static final Duration STALL = Duration.ofSeconds(60);

    private final Map<String, Object> consumerConfig;
    private final Consumer<String> progress;

    TopicScan(Map<String, Object> consumerConfig, Consumer<String> progress) {
        this.consumerConfig = Map.copyOf(consumerConfig);
        this.progress = progress;
    }

    /** Reads the records of {@code topic} with a timestamp at or after {@code fromMillis}; returns how many. */
    long read(String topic, long fromMillis, Sink sink) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerConfig)) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, TIMEOUT);
            if (infos == null || infos.isEmpty()) {
                progress.accept("topic " + topic + " does not exist");
                return 0;
            }
            List<TopicPartition> partitions = infos.stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            consumer.assign(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, TIMEOUT);
            Map<TopicPartition, Long> query = new HashMap<>();
            partitions.forEach(tp -> query.put(tp, fromMillis));
            Map<TopicPartition, OffsetAndTimestamp> start = consumer.offsetsForTimes(query, TIMEOUT);
            long total = 0;
            for (TopicPartition tp : partitions) {
                OffsetAndTimestamp at = start.get(tp);
                long from = at == null ? end.get(tp) : at.offset();
                consumer.seek(tp, from);
                total += end.get(tp) - from;
            }
            long read = 0;
            long lastReport = System.nanoTime();
            long lastRecord = System.nanoTime();
            while (behind(consumer, end)) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() < end.get(new TopicPartition(r.topic(), r.partition()))) {
                        sink.accept(r);
                        read++;
                        lastRecord = System.nanoTime();
                    }
                }
                long now = System.nanoTime();
                if (now - lastReport >= 1_000_000_000L) {
                    progress.accept(String.format(java.util.Locale.ROOT, "topic %s: read %d of %d records (%d%%)",
                            topic, read, total, total == 0 ? 100 : read * 100 / total));
                    lastReport = now;
                }
                if (now - lastRecord > STALL.toNanos()) {
                    throw new IllegalStateException("reading topic " + topic + " stalled at " + read + " of "
                            + total + " records for " + STALL.toSeconds() + " s; is the broker reachable?");
                }
            }
            return read;
        }
    }

    private static boolean behind(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey(), TIMEOUT) < e.getValue()) {
                return true;
            }
        }
        return false;
    }
}
