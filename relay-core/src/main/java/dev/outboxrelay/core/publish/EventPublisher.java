package dev.outboxrelay.core.publish;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Sends routed records to Kafka. A returned future completes only when the broker acknowledged the record
 * with {@code acks=all} (or failed for good): callers mark rows sent or confirm offsets from that, never earlier.
 * Records sent to one partition are acknowledged in send order (idempotent producer).
 */
public interface EventPublisher extends AutoCloseable {

    /** A publisher over one idempotent Kafka producer with the given settings. */
    static EventPublisher kafka(ProducerSettings settings) {
        return new KafkaEventPublisher(settings);
    }

    /**
     * Sends asynchronously. Never throws: every failure (including one the producer raises synchronously, such
     * as a record larger than {@code max.request.size}) completes the future exceptionally.
     */
    CompletableFuture<RecordMetadata> publish(ProducerRecord<byte[], byte[]> record);

    /** Sends everything buffered now instead of waiting for {@code linger.ms}. */
    void flush();

    /** Closes the producer, waiting up to {@code timeout} for in-flight records. Idempotent. */
    void close(Duration timeout);

    @Override
    default void close() {
        close(Duration.ofSeconds(30));
    }
}
