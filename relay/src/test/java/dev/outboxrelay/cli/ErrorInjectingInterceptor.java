package dev.outboxrelay.cli;

import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.ProducerInterceptor;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A fault for {@link WorkerErrorIT}: a producer interceptor ({@code --kafka.interceptor.classes}) that throws an
 * {@link Error} from {@code send} once, at the send number in system property {@value #AFTER}, in whatever relay
 * thread sends (the poll worker, Debezium's handler). Kafka catches an interceptor's exceptions, not its errors.
 */
public final class ErrorInjectingInterceptor implements ProducerInterceptor<byte[], byte[]> {

    /** System property: the send that fails. */
    public static final String AFTER = "outbox.test.error.after";

    private static final AtomicLong SENDS = new AtomicLong();

    @Override
    public ProducerRecord<byte[], byte[]> onSend(ProducerRecord<byte[], byte[]> record) {
        if (SENDS.incrementAndGet() == Long.getLong(AFTER, Long.MAX_VALUE)) {
            System.err.println("ErrorInjectingInterceptor: injecting an Error at " + System.currentTimeMillis());
            throw new InternalError("injected by WorkerErrorIT");
        }
        return record;
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
