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

    /**
     * Sends {@code record} in a producer batch of its own and returns once Kafka answered it, blocking the caller
     * that long. For a record the broker may reject as larger than its topic takes: in a batch with other records
     * the broker's rejection makes the producer split the batch and send the parts again under new sequence
     * numbers, which with idempotence has been seen to stall the partition on {@code OUT_OF_ORDER_SEQUENCE_NUMBER}
     * retries forever. Alone, the record simply fails with {@code RecordTooLargeException}.
     */
    default CompletableFuture<RecordMetadata> publishAlone(ProducerRecord<byte[], byte[]> record) {
        flush();
        CompletableFuture<RecordMetadata> ack = publish(record);
        flush();
        return ack;
    }

    /**
     * True once the producer was closed to keep per-key order (at-least-once publisher only). A record that fails
     * in a way that would let the producer send later records of its partition after it (an expired batch, a
     * broker's error, a send that could not start while the broker was unreachable) closes the producer at that
     * moment, on the producer's own I/O thread, before it can re-sequence anything: every record not acknowledged
     * by then fails, so each partition holds a prefix of what was handed to that producer. Until {@link #rebuild()},
     * {@link #publish} fails at once. A record sent with {@link #publishAlone} breaks nothing: the rest of its key
     * waits for its answer anyway.
     */
    default boolean broken() {
        return false;
    }

    /** Why the producer was closed ({@link #broken()}), or null while it works. */
    default Throwable brokenBy() {
        return null;
    }

    /**
     * Replaces a {@link #broken()} producer with a new one (a new producer id); does nothing while the producer works.
     * The pipeline calls it after every batch handed to the old producer was answered, then sends again, in order,
     * what the old one did not deliver.
     */
    default void rebuild() {
    }

    /** Sends everything buffered now instead of waiting for {@code linger.ms}; returns once all are answered. */
    void flush();

    /**
     * The largest record the producer sends at all ({@code max.request.size}): a record of more serialized bytes is
     * refused before it is sent, every time.
     */
    int maxRecordBytes();

    /**
     * The exactly-once state topic when this publisher is transactional ({@link ProducerSettings#exactlyOnce}):
     * records sent between {@link #beginTransaction} and {@link #commitTransaction} become visible to
     * {@code read_committed} consumers together, or never. Empty for the at-least-once publisher.
     */
    default java.util.Optional<StateTopic> stateTopic() {
        return java.util.Optional.empty();
    }

    /**
     * Transactional only: a fresh producer registers the {@code transactional.id}, which fences any older producer of
     * it (another instance, or this one before) and aborts its open transaction. Blocks up to {@code max.block.ms}.
     */
    default void initTransactions() {
        throw new UnsupportedOperationException("not a transactional publisher");
    }

    /** Transactional only: starts the transaction the next records belong to. */
    default void beginTransaction() {
        throw new UnsupportedOperationException("not a transactional publisher");
    }

    /** Transactional only: flushes and commits the open transaction. */
    default void commitTransaction() {
        throw new UnsupportedOperationException("not a transactional publisher");
    }

    /** Transactional only: aborts the open transaction; its records are never seen by read_committed consumers. */
    default void abortTransaction() {
        throw new UnsupportedOperationException("not a transactional publisher");
    }

    /** Closes the producer, waiting up to {@code timeout} for in-flight records. Idempotent. */
    void close(Duration timeout);

    @Override
    default void close() {
        close(Duration.ofSeconds(30));
    }
}
