package dev.outboxrelay.core.publish;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.utils.Utils;

/** {@link StateTopic} on a Kafka topic, read with a short-lived {@code read_committed} consumer. */
final class KafkaStateTopic implements StateTopic {

    private static final byte FORMAT = 1;
    private static final long FIRST_WINDOW = 64;

    private final ExactlyOnce settings;
    private final Map<String, Object> consumerProperties;
    private final byte[] key;

    KafkaStateTopic(ExactlyOnce settings, Map<String, Object> producerProperties) {
        this.settings = settings;
        this.key = settings.stateKey().getBytes(StandardCharsets.UTF_8);
        Map<String, Object> props = ClientProperties.consumer(producerProperties, "outbox-relay-state");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        this.consumerProperties = props;
    }

    @Override
    public String transactionalId() {
        return settings.transactionalId();
    }

    @Override
    public String topic() {
        return settings.stateTopic();
    }

    @Override
    public ProducerRecord<byte[], byte[]> record(int partitions, Collection<UUID> ids) {
        return new ProducerRecord<>(topic(), partitionOf(key, partitions), key, encode(ids));
    }

    @Override
    public Position read(Duration timeout) {
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(consumerProperties)) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic(), timeout);
            if (infos == null || infos.isEmpty()) {
                throw new org.apache.kafka.common.errors.UnknownTopicOrPartitionException(
                        "state topic " + topic() + " does not exist");
            }
            TopicPartition tp = new TopicPartition(topic(), partitionOf(key, infos.size()));
            consumer.assign(List.of(tp));
            long begin = consumer.beginningOffsets(List.of(tp), timeout).get(tp);
            long end = consumer.endOffsets(List.of(tp), timeout).get(tp); // the last stable offset: read_committed
            long window = FIRST_WINDOW;
            while (true) {
                long from = Math.max(begin, end - window);
                byte[] last = lastValue(consumer, tp, from, end, timeout);
                if (last != null || from == begin) {
                    return new Position(infos.size(), last == null ? List.of() : decode(last));
                }
                window *= 8;
            }
        }
    }

    private byte[] lastValue(KafkaConsumer<byte[], byte[]> consumer, TopicPartition tp, long from, long end,
                             Duration timeout) {
        consumer.seek(tp, from);
        byte[] last = null;
        long deadline = System.nanoTime() + timeout.toNanos();
        while (consumer.position(tp, timeout) < end) {
            if (System.nanoTime() > deadline) {
                throw new org.apache.kafka.common.errors.TimeoutException("reading state topic " + topic());
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (r.offset() < end && java.util.Arrays.equals(r.key(), key)) {
                    last = r.value();
                }
            }
        }
        return last;
    }

    static int partitionOf(byte[] key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key)) % partitions;
    }

    static byte[] encode(Collection<UUID> ids) {
        ByteBuffer b = ByteBuffer.allocate(5 + 16 * ids.size());
        b.put(FORMAT).putInt(ids.size());
        for (UUID id : ids) {
            b.putLong(id.getMostSignificantBits()).putLong(id.getLeastSignificantBits());
        }
        return b.array();
    }

    static List<UUID> decode(byte[] value) {
        if (value == null || value.length < 5 || value[0] != FORMAT) {
            throw new IllegalStateException("unreadable exactly-once state record (format "
                    + (value == null || value.length == 0 ? "none" : value[0]) + ")");
        }
        ByteBuffer b = ByteBuffer.wrap(value, 1, value.length - 1);
        int n = b.getInt();
        List<UUID> ids = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            ids.add(new UUID(b.getLong(), b.getLong()));
        }
        return ids;
    }
}
