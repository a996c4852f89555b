package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.publish.EventPublisher;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;

/** Answers each record as told; remembers what was sent. Thread-safe: the settling thread re-sends. */
final class FakePublisher implements EventPublisher {
    volatile Function<ProducerRecord<byte[], byte[]>, CompletableFuture<RecordMetadata>> answer = r -> acked();
    final List<ProducerRecord<byte[], byte[]>> sent = new CopyOnWriteArrayList<>();
    final List<CompletableFuture<RecordMetadata>> pending = new CopyOnWriteArrayList<>();

    static RecordMetadata metadata() {
        return new RecordMetadata(new TopicPartition("t", 0), 0, 0, 0, 0, 0);
    }

    static CompletableFuture<RecordMetadata> acked() {
        return CompletableFuture.completedFuture(metadata());
    }

    @Override
    public CompletableFuture<RecordMetadata> publish(ProducerRecord<byte[], byte[]> record) {
        sent.add(record);
        CompletableFuture<RecordMetadata> f = answer.apply(record);
        pending.add(f);
        return f;
    }

    volatile int flushes;
    volatile int maxRecordBytes = 1 << 20;

    @Override
    public int maxRecordBytes() {
        return maxRecordBytes;
    }

    @Override
    public void flush() {
        flushes++;
    }

    @Override
    public void close(Duration timeout) {
    }
}
