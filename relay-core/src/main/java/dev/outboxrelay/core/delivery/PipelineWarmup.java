package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.route.EventRouter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Utils;

/** {@link Warmup} over a {@link DeliveryPipeline} whose publisher and row store only pretend. */
final class PipelineWarmup implements Warmup {

    /** A source's typical batch; the settler's group size follows from it. */
    private static final int BATCH = 100;
    /** Distinct keys, so that per-key bookkeeping sees many keys as it does in production. */
    private static final int KEYS = 1_000;
    /** Partitions the discarding publisher spreads records over, by the producer's own hash of the key. */
    private static final int PARTITIONS = 12;

    /** The producer's default {@code max.request.size}; the synthetic events are far smaller. */
    private static final int MAX_RECORD_BYTES = 1 << 20;

    private final EventRouter router;

    PipelineWarmup(EventRouter router) {
        this.router = router;
    }

    @Override
    public Report run(int events, Duration limit) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + limit.toNanos();
        Discarding publisher = new Discarding();
        DeliverySettings settings = new DeliverySettings(1, OnPoison.SKIP, Optional.empty(), 10_000, 64L << 20,
                "outbox-relay-warmup");
        int submitted = 0;
        try (DeliveryPipeline pipeline = DeliveryPipeline.start(settings, router, publisher, TopicLimits.unknown(),
                KeyParking.create(keys -> { }), new NoRows(), RelayListener.none())) {
            while (submitted < events && System.nanoTime() < deadline) {
                int n = Math.min(BATCH, events - submitted);
                List<Item> batch = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    batch.add(row(submitted + i));
                }
                pipeline.submit(batch, false, last -> { });
                submitted += n;
            }
            pipeline.drain(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())));
        }
        return new Report(submitted, publisher.published.get(), Duration.ofNanos(System.nanoTime() - start));
    }

    /** A row as a source reads it: jsonb payload and headers as text, a few shapes, many keys. */
    private static Item row(int i) {
        String key = "warmup-" + (i % KEYS);
        String payload = "{\"id\":" + i + ",\"status\":\"" + (i % 3 == 0 ? "CREATED" : "PAID")
                + "\",\"amount\":" + (i % 997) + "." + (i % 100) + ",\"lines\":[{\"sku\":\"SKU-" + (i % 50)
                + "\",\"quantity\":" + (1 + i % 5) + "}],\"note\":\"synthetic event of the relay's warm-up\"}";
        String headers = i % 2 == 0 ? null
                : "{\"traceparent\":\"00-4bf92f3577b34da6a3ce929d0e0e" + String.format("%04x", i & 0xffff)
                + "-00f067aa0ba902b7-01\"}";
        return Item.fromColumns(new UUID(0x5741524d5550L, i), i % 4 == 0 ? "warmup_order" : "warmup",
                key, i % 5 == 0 ? "OrderCreated" : "OrderPaid", payload, headers, Instant.now());
    }

    /** Answers every record at once, as Kafka would after {@code acks=all}; sends nothing. */
    private static final class Discarding implements EventPublisher {
        private final AtomicLong published = new AtomicLong();

        @Override
        public CompletableFuture<RecordMetadata> publish(ProducerRecord<byte[], byte[]> record) {
            byte[] key = record.key();
            int partition = key == null ? 0 : Utils.toPositive(Utils.murmur2(key)) % PARTITIONS;
            long offset = published.getAndIncrement();
            return CompletableFuture.completedFuture(new RecordMetadata(new TopicPartition(record.topic(), partition),
                    offset, 0, System.currentTimeMillis(), key == null ? -1 : key.length,
                    record.value() == null ? -1 : record.value().length));
        }

        @Override
        public void flush() {
        }

        @Override
        public int maxRecordBytes() {
            return MAX_RECORD_BYTES;
        }

        @Override
        public void close(Duration timeout) {
        }
    }

    /** Writes nothing: the synthetic rows are in no table. */
    private static final class NoRows implements RowStore {
        @Override
        public void acknowledge(List<UUID> ids) {
        }

        @Override
        public Collection<UUID> record(List<UUID> acked, List<Failure> failures, int maxAttempts) {
            return failures.stream().map(Failure::id).toList();
        }

        @Override
        public void holdForRetry(Map<UUID, Duration> delays) {
        }

        @Override
        public Map<UUID, Integer> attempts(Collection<UUID> ids) {
            return Map.of();
        }

        @Override
        public void close() {
        }
    }
}
