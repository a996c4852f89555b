package dev.outboxrelay.core.publish;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.producer.ProducerRecord;

/**
 * The exactly-once position in Kafka: each transaction ends with one record, keyed by the relay, listing the ids of
 * the rows it published. Rows are marked in PostgreSQL only after the commit; if the relay dies in between, the
 * next instance reads the last committed record ({@code read_committed}) and marks those rows before publishing
 * anything, so they are never sent again. Every earlier transaction's rows were marked before the next one committed
 * (one settling thread), so the last record is the whole gap.
 *
 * <p>Value: a format byte (1), the number of ids, then each id's 16 bytes.
 */
public interface StateTopic {

    /** The state topic of {@code settings}, reached with the producer's connection and security settings. */
    static StateTopic kafka(ExactlyOnce settings, Map<String, Object> producerProperties) {
        return new KafkaStateTopic(settings, producerProperties);
    }

    /** The transactional id whose position this is. */
    String transactionalId();

    /** The topic's name. */
    String topic();

    /** The record that ends a transaction publishing {@code ids}, to the partition its key hashes to. */
    ProducerRecord<byte[], byte[]> record(int partitions, Collection<UUID> ids);

    /**
     * The ids of the last committed transaction of this relay (empty if none), read {@code read_committed}, and the
     * topic's partition count for {@link #record}. Call it after {@code initTransactions()}, which aborts a dead
     * instance's open transaction: otherwise the read waits for it to time out.
     *
     * @throws org.apache.kafka.common.KafkaException when Kafka does not answer within {@code timeout}
     */
    Position read(Duration timeout);

    /** What {@link #read} found: the ids to mark, and the topic's partitions. */
    record Position(int partitions, List<UUID> committedIds) {
    }
}
