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

    private static final Duration TRANSACTIONAL_CLOSE = Duration.ofSeconds(3);

    private final ProducerSettings settings;
    private final java.util.Optional<StateTopic> stateTopic;
    /** Replaced only by {@link #initTransactions} (transactional), before anything is sent. */
    private volatile Producer<byte[], byte[]> producer;
    private volatile KafkaClientMetrics metrics;
    private boolean initialized;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final int maxRecordBytes;
    /**
     * Spans through the global OpenTelemetry, which the daemon installs first when tracing is configured; null
     * otherwise, so an untraced relay spends nothing per record on it.
     */
    private final PublishTracing tracing = GlobalOpenTelemetry.isSet()
            ? PublishTracing.of(GlobalOpenTelemetry.getOrNoop()) : null;

    KafkaEventPublisher(ProducerSettings settings) {
        this.settings = settings;
        this.stateTopic = settings.exactlyOnce().map(e -> StateTopic.kafka(e, settings.producerProperties()));
        // Parsed by Kafka's own definition (no config dump in the log, unlike new ProducerConfig(...)).
        this.maxRecordBytes = (Integer) ProducerConfig.configDef().parse(settings.producerProperties())
                .get(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        this.producer = newProducer();
    }

    private Producer<byte[], byte[]> newProducer() {
        Producer<byte[], byte[]> p = new KafkaProducer<>(settings.producerProperties());
        // The producer's own metrics (kafka_producer_*) go to Micrometer's global registry, which the daemon's
        // /metrics registry joins: the producer lives in the source, the registry in the daemon.
        KafkaClientMetrics m = new KafkaClientMetrics(p);
        m.bindTo(Metrics.globalRegistry);
        this.metrics = m;
        return p;
    }

    @Override
    public java.util.Optional<StateTopic> stateTopic() {
        return stateTopic;
    }

    @Override
    public synchronized void initTransactions() {
        if (stateTopic.isEmpty()) {
            throw new UnsupportedOperationException("not a transactional publisher");
        }
        if (initialized) {
            // A producer that was fenced, or failed fatally, cannot be used again: a new one takes the id.
            metrics.close();
            producer.close(Duration.ZERO);
            producer = newProducer();
        }
        initialized = true;
        producer.initTransactions();
    }

    @Override
    public void beginTransaction() {
        producer.beginTransaction();
    }

    @Override
    public void commitTransaction() {
        producer.commitTransaction();
    }

    @Override
    public void abortTransaction() {
        producer.abortTransaction();
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
            // Transactional: what is not committed by now never will be, and must not be (the next instance's
            // initTransactions aborts it, or the coordinator after transaction.timeout.ms). Waiting would only let
            // the producer's shutdown abort loop hold the stop (seen waiting > 30 s on an interrupted commit).
            producer.close(stateTopic.isPresent() && timeout.compareTo(TRANSACTIONAL_CLOSE) > 0
                    ? TRANSACTIONAL_CLOSE : timeout);
        }
    }
}
