package dev.outboxrelay.poll;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import dev.outboxrelay.core.delivery.DeadLetterTopic;
import dev.outboxrelay.core.delivery.FailureClass;
import dev.outboxrelay.core.delivery.Failures;
import dev.outboxrelay.core.delivery.KeyParking;
import dev.outboxrelay.core.delivery.TopicLimits;
import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.event.OutboxEvents;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.route.EventRouter;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * Sends a fetched batch and settles it once Kafka answered. Per-key order rules, applied in {@code seq} order:
 * <ul>
 *   <li>once a row of a key fails locally (malformed, illegal topic, too large for the producer), the key's
 *       later rows in this batch and in batches sent while this one is in flight are held back, unsent;</li>
 *   <li>a record larger than its topic's {@code max.message.bytes} may still fit once compressed, so it is sent,
 *       in a producer batch of its own ({@link EventPublisher#publishAlone}), and the rest of its key is held back
 *       the same way until the broker answered;</li>
 *   <li>when settling, only each key's prefix of acknowledged rows is marked: a row acknowledged after an
 *       earlier row of its key failed stays unsent and is published again after that row.</li>
 * </ul>
 */
final class BatchPublisher {

    private final EventRouter router;
    private final KeyParking parking;
    private TopicLimits limits = TopicLimits.unknown();
    private final RelayListener listener;
    private final String deadLetterTopic;
    private final int maxAttempts;
    private EventPublisher publisher;

    BatchPublisher(EventRouter router, KeyParking parking, RelayListener listener, String deadLetterTopic,
                   int maxAttempts) {
        this.router = router;
        this.parking = parking;
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
                malformed(batch, stopped, row, e.getMessage());
                continue;
            }
            int limit = limits.maxMessageBytes(record.topic());
            if (limit == TopicLimits.UNUSABLE) {
                // A send would block for max.block.ms or fail again; the row waits for its topic, its key with it.
                parkForTopic(batch, stopped, row, record.topic());
                continue;
            }
            boolean risky = TopicLimits.estimatedSize(record) > limit;
            CompletableFuture<RecordMetadata> ack = risky ? publisher.publishAlone(record) : publisher.publish(record);
            if (ack.isCompletedExceptionally()) {
                Throwable error = ack.handle((m, e) -> e).join();
                switch (Failures.classify(error)) {
                    case ROW -> fail(batch, stopped, row, Failures.describe(error));
                    case TOPIC -> {
                        limits.unusable(record.topic(), Failures.unwrap(error));
                        parkForTopic(batch, stopped, row, record.topic());
                    }
                    case BROKER -> {
                        batch.outage = Failures.unwrap(error);
                        batch.held++;
                    }
                }
                continue;
            }
            batch.sent.add(new Batch.Sent(row, record.topic(), ack));
            if (risky) {
                stopped.add(row.aggregateId());
                batch.blockingKeys.add(row.aggregateId());
            }
        }
        return batch;
    }

    /** The key's rows are left out of the fetch until the topic is looked at again (KeyParking). */
    private void parkForTopic(Batch batch, Set<String> stopped, OutboxRow row, String topic) {
        parking.park(row.aggregateId(), KeyParking.Reason.TOPIC, "topic " + topic);
        stopped.add(row.aggregateId());
        batch.held++;
    }

    private void malformed(Batch batch, Set<String> stopped, OutboxRow row, String reason) {
        fail(batch, stopped, row, reason);
        batch.malformed.add(row.id());
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
                limits.unusable(s.topic(), Failures.unwrap(error));
                parking.park(key, KeyParking.Reason.TOPIC, "topic " + s.topic());
            } else if (outage == null) {
                outage = Failures.unwrap(error);
            }
        }
        for (Batch.Failed f : batch.failed) {
            // A malformed row fails identically on every attempt: it uses all that are left at once.
            int attempts = batch.malformed.contains(f.row().id()) ? Math.max(1, maxAttempts - f.row().attempts()) : 1;
            for (int i = 0; i < attempts; i++) {
                failures.add(new Failure(f.row().id(), f.reason()));
            }
            failedRows.add(f.row());
        }
        List<OutboxRow> dying = new ArrayList<>();
        for (OutboxRow row : failedRows) {
            if (row.attempts() + 1 >= maxAttempts || batch.malformed.contains(row.id())) {
                dying.add(row);
            } else {
                // Tried again after a backoff: until then the key's rows are left out of the fetch.
                parking.park(row.aggregateId(), KeyParking.Reason.ROW_RETRY, "event " + row.id());
            }
        }
        return new Outcome(acknowledged, failures, dying, outage);
    }

    /**
     * Sends rows about to be dead-lettered to the dead-letter topic, if one is configured, and waits for the
     * acknowledgement ({@link DeadLetterTopic}). Returns the failures to record.
     */
    List<Failure> sendToDeadLetterTopic(Outcome outcome) throws InterruptedException {
        if (deadLetterTopic == null || outcome.dying().isEmpty()) {
            return outcome.failures();
        }
        List<DeadLetterTopic.DyingEvent> dying = new ArrayList<>(outcome.dying().size());
        for (OutboxRow row : outcome.dying()) {
            dying.add(new DeadLetterTopic.DyingEvent(row.id(), row.aggregateType(), row.aggregateId(),
                    row.eventType(), row.payload()));
        }
        return new DeadLetterTopic(deadLetterTopic, publisher).publishCopies(dying, outcome.failures());
    }
}
