package dev.outboxrelay.poll;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import dev.outboxrelay.core.delivery.FailureClass;
import dev.outboxrelay.core.delivery.Failures;
import dev.outboxrelay.core.delivery.TopicLimits;
import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.event.OutboxEvents;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.route.EventRouter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * Sends a fetched batch and settles it once Kafka answered. Per-key order rules, applied in {@code seq} order:
 * <ul>
 *   <li>once a row of a key fails locally (malformed, illegal topic, too large for the producer), the key's
 *       later rows in this batch and in batches sent while this one is in flight are held back, unsent;</li>
 *   <li>a record larger than its topic's {@code max.message.bytes} may still fit once compressed, so it is sent,
 *       but the rest of its key is held back the same way until the broker answered;</li>
 *   <li>when settling, only each key's prefix of acknowledged rows is marked: a row acknowledged after an
 *       earlier row of its key failed stays unsent and is published again after that row.</li>
 * </ul>
 */
final class BatchPublisher {

    /** Per-record overhead of the Kafka record format beyond key, value and headers, rounded up. */
    private static final int RECORD_OVERHEAD = 128;

    private final EventRouter router;
    private TopicLimits limits = TopicLimits.unknown();
    private final RelayListener listener;
    private final String deadLetterTopic;
    private final int maxAttempts;
    private EventPublisher publisher;

    BatchPublisher(EventRouter router, RelayListener listener, String deadLetterTopic, int maxAttempts) {
        this.router = router;
        this.listener = listener;
        this.deadLetterTopic = deadLetterTopic;
        this.maxAttempts = maxAttempts;
    }

    void use(EventPublisher publisher, TopicLimits limits) {
        this.publisher = publisher;
        this.limits = limits;
    }

    /**
     * Routes and sends {@code rows} (in seq order) without waiting for acknowledgements.
     *
     * @param blocked keys that must not be sent now because an in-flight batch holds them back
     */
    Batch send(List<OutboxRow> rows, Set<String> blocked) {
        Batch batch = new Batch(rows.size());
        Set<String> stopped = new HashSet<>(blocked);
        for (OutboxRow row : rows) {
            if (batch.outage != null || stopped.contains(row.aggregateId())) {
                batch.held++;
                continue;
            }
            ProducerRecord<byte[], byte[]> record;
            try {
                OutboxEvent event = OutboxEvents.fromRow(row.id(), row.aggregateType(), row.aggregateId(),
                        row.eventType(), row.payload(), row.headers(), row.createdAt());
                record = router.route(event);
            } catch (MalformedEventException e) {
                fail(batch, stopped, row, e.getMessage());
                continue;
            }
            int limit = limits.maxMessageBytes(record.topic());
            if (limit == TopicLimits.UNUSABLE) {
                // A send would block for max.block.ms or fail again; the row waits for its topic, its key with it.
                stopped.add(row.aggregateId());
                batch.held++;
                continue;
            }
            CompletableFuture<RecordMetadata> ack = publisher.publish(record);
            if (ack.isCompletedExceptionally()) {
                Throwable error = ack.handle((m, e) -> e).join();
                switch (Failures.classify(error)) {
                    case ROW -> fail(batch, stopped, row, Failures.describe(error));
                    case TOPIC -> {
                        topicUnusable(record.topic(), error);
                        stopped.add(row.aggregateId());
                        batch.held++;
                    }
                    case BROKER -> {
                        batch.outage = Failures.unwrap(error);
                        batch.held++;
                    }
                }
                continue;
            }
            batch.sent.add(new Batch.Sent(row, record.topic(), ack));
            if (estimatedSize(record) > limit) {
                stopped.add(row.aggregateId());
                batch.blockingKeys.add(row.aggregateId());
            }
        }
        return batch;
    }

    private void topicUnusable(String topic, Throwable error) {
        limits.unusable(topic, Failures.unwrap(error));
    }

    private void fail(Batch batch, Set<String> stopped, OutboxRow row, String reason) {
        batch.failed.add(new Batch.Failed(row, reason));
        stopped.add(row.aggregateId());
        batch.blockingKeys.add(row.aggregateId());
        listener.publishFailed(row.id(), reason);
    }

    /** What settling a batch whose acknowledgements are all in decided. */
    record Outcome(List<UUID> acknowledged, List<Failure> failures, List<OutboxRow> dying, Throwable outage) {
    }

    /** Decides what to mark and which failures to record; call once {@link Batch#acked()} completed. */
    Outcome settle(Batch batch) {
        List<UUID> acknowledged = new ArrayList<>(batch.sent.size());
        List<Failure> failures = new ArrayList<>();
        List<OutboxRow> failedRows = new ArrayList<>();
        Throwable outage = batch.outage;
        Set<String> broken = new HashSet<>();
        for (Batch.Sent s : batch.sent) {
            String key = s.row().aggregateId();
            Throwable error = s.ack().handle((m, e) -> e).join();
            if (error == null) {
                limits.published(s.topic());
                if (!broken.contains(key)) {
                    acknowledged.add(s.row().id());
                    listener.published(s.topic(), s.row().createdAt());
                }
                continue;
            }
            broken.add(key);
            FailureClass failure = Failures.classify(error);
            if (failure == FailureClass.ROW) {
                String reason = Failures.describe(error);
                failures.add(new Failure(s.row().id(), reason));
                failedRows.add(s.row());
                listener.publishFailed(s.row().id(), reason);
            } else if (failure == FailureClass.TOPIC) {
                // No attempt counted: the row stays unsent and the topic's rows wait until it is usable again.
                topicUnusable(s.topic(), error);
            } else if (outage == null) {
                outage = Failures.unwrap(error);
            }
        }
        for (Batch.Failed f : batch.failed) {
            failures.add(new Failure(f.row().id(), f.reason()));
            failedRows.add(f.row());
        }
        List<OutboxRow> dying = new ArrayList<>();
        for (OutboxRow row : failedRows) {
            if (row.attempts() + 1 >= maxAttempts) {
                dying.add(row);
            }
        }
        return new Outcome(acknowledged, failures, dying, outage);
    }

    /**
     * Sends rows about to be dead-lettered to the dead-letter topic, if one is configured, and waits for the
     * acknowledgement. Returns the failures to record: a row whose dead-letter record could not be delivered
     * because Kafka is unavailable is left out, so it is retried rather than dead-lettered without its copy.
     */
    List<Failure> sendToDeadLetterTopic(Outcome outcome) throws InterruptedException {
        if (deadLetterTopic == null || outcome.dying().isEmpty()) {
            return outcome.failures();
        }
        List<Failure> result = new ArrayList<>();
        Set<UUID> dying = new HashSet<>();
        for (OutboxRow row : outcome.dying()) {
            dying.add(row.id());
        }
        List<CompletableFuture<RecordMetadata>> acks = new ArrayList<>();
        for (Failure f : outcome.failures()) {
            if (dying.contains(f.id())) {
                OutboxRow row = outcome.dying().stream().filter(r -> r.id().equals(f.id())).findFirst().orElseThrow();
                acks.add(publisher.publish(deadLetterRecord(row, f.reason())));
            } else {
                acks.add(null);
            }
        }
        for (int i = 0; i < acks.size(); i++) {
            Failure f = outcome.failures().get(i);
            CompletableFuture<RecordMetadata> ack = acks.get(i);
            if (ack == null) {
                result.add(f);
                continue;
            }
            Throwable error;
            try {
                ack.get(30, TimeUnit.SECONDS);
                error = null;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                error = Failures.unwrap(e);
            }
            if (error == null) {
                result.add(f);
            } else if (Failures.classify(error) == FailureClass.ROW) {
                result.add(new Failure(f.id(), f.reason() + "; the dead-letter topic rejected it too: "
                        + error.getClass().getSimpleName()));
            }
        }
        return result;
    }

    private ProducerRecord<byte[], byte[]> deadLetterRecord(OutboxRow row, String reason) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(EventRouter.HEADER_ID, utf8(row.id().toString()));
        headers.add(EventRouter.HEADER_TYPE, utf8(row.eventType()));
        headers.add(EventRouter.HEADER_AGGREGATE_TYPE, utf8(row.aggregateType()));
        headers.add("dead_letter_reason", utf8(reason));
        byte[] value = row.payload() == null ? null : utf8(row.payload());
        return new ProducerRecord<>(deadLetterTopic, null, utf8(row.aggregateId()), value, headers);
    }

    private static int estimatedSize(ProducerRecord<byte[], byte[]> record) {
        long size = RECORD_OVERHEAD + (record.key() == null ? 0 : record.key().length)
                + (record.value() == null ? 0 : record.value().length);
        for (Header h : record.headers()) {
            size += h.key().length() + (h.value() == null ? 0 : h.value().length) + 8;
        }
        return (int) Math.min(Integer.MAX_VALUE, size);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
