package dev.outboxrelay.core.publish;

import io.micrometer.core.instrument.Metrics;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.trace.Span;
import io.micrometer.core.instrument.binder.kafka.KafkaClientMetrics;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

final class KafkaEventPublisher implements EventPublisher {

    private final Producer<byte[], byte[]> producer;
    private final KafkaClientMetrics metrics;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final int maxRecordBytes;
    /**
     * Spans through the global OpenTelemetry, which the daemon installs first when tracing is configured; null
     * otherwise, so an untraced relay spends nothing per record on it.
     */
    private final PublishTracing tracing = GlobalOpenTelemetry.isSet()
            ? PublishTracing.of(GlobalOpenTelemetry.getOrNoop()) : null;

    KafkaEventPublisher(ProducerSettings settings) {
        this.producer = new KafkaProducer<>(settings.producerProperties());
        // Parsed by Kafka's own definition (no config dump in the log, unlike new ProducerConfig(...)).
        this.maxRecordBytes = (Integer) ProducerConfig.configDef().parse(settings.producerProperties())
                .get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        // The producer's own metrics (kafka_producer_*) go to Micrometer's global registry, which the daemon's
        // /metrics registry joins: the producer lives in the source, the registry in the daemon.
        this.metrics = new KafkaClientMetrics(producer);
        metrics.bindTo(Metrics.globalRegistry);
    }

    @Override
    public CompletableFuture<RecordMetadata> publish(ProducerRecord<byte[], byte[]> record) {
        CompletableFuture<RecordMetadata> acked = new CompletableFuture<>();
        if (tracing != null) {
            Span span = tracing.start(record);
            acked.whenComplete((metadata, error) -> PublishTracing.end(span, metadata, error));
        }
        try {
            producer.send(record, (metadata, error) -> {
                if (error != null) {
                    acked.completeExceptionally(error);
                } else {
                    acked.complete(metadata);
                }
            });
        } catch (RuntimeException e) {
            acked.completeExceptionally(e);
        }
        return acked;
    }

    @Override
    public int maxRecordBytes() {
        return maxRecordBytes;
    }

    @Override
    public void flush() {
        producer.flush();
    }

    @Override
    public void close(Duration timeout) {
        if (closed.compareAndSet(false, true)) {
            metrics.close();
            producer.close(timeout);
        }
    }
}
