package dev.outboxrelay.core.publish;

import dev.outboxrelay.core.delivery.FailureClass;
import dev.outboxrelay.core.delivery.Failures;
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
import org.apache.kafka.common.errors.InterruptException;

/**
 * The publisher over one Kafka producer at a time. At least once, a record that fails in a way that lets the
 * producer send later records of its partition after it closes that producer on the spot ({@link #broken()}); the
 * pipeline then has {@link #rebuild()} make a new one. Exactly once, the transaction's abort plays that part.
 */
final class KafkaEventPublisher implements EventPublisher {

    private static final Duration TRANSACTIONAL_CLOSE = Duration.ofSeconds(3);

    private final ProducerSettings settings;
    private final java.util.Optional<StateTopic> stateTopic;
    /** Replaced only by {@link #initTransactions} (transactional), before anything is sent. */
    private volatile Producer<byte[], byte[]> producer;
    private volatile KafkaClientMetrics metrics;
    /** At least once: why {@link #producer} was closed to keep order, null while it works; guarded by this. */
    private volatile Throwable brokenBy;
    private boolean initialized;
    /** The last initTransactions ran out of max.block.ms: the next call resumes it on the same producer. */
    private boolean initTimedOut;
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
        if (initialized && !initTimedOut) {
            // A producer that was fenced, or failed fatally, cannot be used again: a new one takes the id.
            metrics.close();
            producer.close(Duration.ZERO);
            producer = newProducer();
        }
        initialized = true;
        try {
            producer.initTransactions();
            initTimedOut = false;
        } catch (org.apache.kafka.common.errors.TimeoutException e) {
            // Kafka's rule: call initTransactions again on the same producer, which resumes where it was (a new
            // producer would start over and, on a loaded machine, might never finish within max.block.ms).
            initTimedOut = true;
            throw e;
        }
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
        return send(record, false);
    }

    @Override
    public CompletableFuture<RecordMetadata> publishAlone(ProducerRecord<byte[], byte[]> record) {
        flush();
        CompletableFuture<RecordMetadata> ack = send(record, true);
        flush();
        return ack;
    }

    private CompletableFuture<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, boolean alone) {
        CompletableFuture<RecordMetadata> acked = new CompletableFuture<>();
        if (tracing != null) {
            Span span = tracing.start(record);
            acked.whenComplete((metadata, error) -> PublishTracing.end(span, metadata, error));
        }
        Producer<byte[], byte[]> p = producer;
        Throwable broken = brokenBy;
        if (broken != null) {
            acked.completeExceptionally(new ClosedForOrderException(broken));
            return acked;
        }
        Thread caller = Thread.currentThread();
        try {
            p.send(record, (metadata, error) -> {
                if (error != null) {
                    // Before the future completes, so whoever sees the failure also sees the producer broken.
                    if (Thread.currentThread() == caller ? breaksOrderWhenRefused(error) : !alone) {
                        breakOff(p, error);
                    }
                    acked.completeExceptionally(error);
                } else {
                    acked.complete(metadata);
                }
            });
        } catch (RuntimeException e) {
            if (breaksOrderWhenRefused(e)) {
                breakOff(p, e);
            }
            acked.completeExceptionally(e);
        }
        return acked;
    }

    /**
     * Whether a record the producer refused before taking it lets later records of its key overtake it: yes when the
     * refusal is broker-wide (no metadata in time: a later send may find it), no for the record's own fault or an
     * interrupt (the sending half parks the rest of the key for those).
     */
    private boolean breaksOrderWhenRefused(Throwable error) {
        return Failures.classify(error) == FailureClass.BROKER
                && !(Failures.unwrap(error) instanceof InterruptException);
    }

    /**
     * Closes {@code p} at once, on whatever thread saw the failure. On the producer's I/O thread (a callback) this is
     * what stops it: it would re-sequence the batches behind the failed one under a new epoch in its next loop, and
     * a forced close ends the loop first, failing every record it still holds.
     */
    private void breakOff(Producer<byte[], byte[]> p, Throwable cause) {
        if (stateTopic.isPresent()) {
            return; // exactly once, the failed record aborts its transaction and the pipeline sends the group again
        }
        synchronized (this) {
            if (brokenBy != null || p != producer || closed.get()) {
                return;
            }
            brokenBy = cause;
        }
        p.close(Duration.ZERO);
    }

    @Override
    public boolean broken() {
        return brokenBy != null;
    }

    @Override
    public Throwable brokenBy() {
        return brokenBy;
    }

    @Override
    public synchronized void rebuild() {
        if (brokenBy == null || closed.get()) {
            return;
        }
        metrics.close();
        producer = newProducer();
        brokenBy = null;
    }

    @Override
    public int maxRecordBytes() {
        return maxRecordBytes;
    }

    @Override
    public void flush() {
        if (brokenBy == null) {
            producer.flush(); // a broken producer holds nothing: it failed every record at its close
        }
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
