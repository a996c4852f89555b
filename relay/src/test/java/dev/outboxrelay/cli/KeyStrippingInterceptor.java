package dev.outboxrelay.cli;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A fault for {@link RetryHoldTakeoverIT}: a producer interceptor ({@code --kafka.interceptor.classes}) that sends
 * the records of topics ending in system property {@value #SUFFIX} without their key. Such a topic is compacted,
 * so the broker refuses each of them with {@code InvalidRecordException}: the row's fault, retried with backoff, as
 * often as {@code --max-attempts} allows. A relay started without the property sends them as they are.
 */
public final class KeyStrippingInterceptor implements ProducerInterceptor<byte[], byte[]> {

    /** System property: the topic-name suffix whose records lose their key. */
    public static final String SUFFIX = "outbox.test.stripKeys";

    @Override
    public ProducerRecord<byte[], byte[]> onSend(ProducerRecord<byte[], byte[]> record) {
        String suffix = System.getProperty(SUFFIX);
        if (suffix == null || !record.topic().endsWith(suffix)) {
            return record;
        }
        return new ProducerRecord<>(record.topic(), record.partition(), record.timestamp(), null, record.value(),
                record.headers());
    }

    @Override
    public void onAcknowledgement(RecordMetadata metadata, Exception exception) {
    }

    @Override
    public void close() {
    }

    @Override
    public void configure(Map<String, ?> configs) {
    }
}
