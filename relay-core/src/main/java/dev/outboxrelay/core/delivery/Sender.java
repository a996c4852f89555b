package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.core.delivery.KeyParking.Reason;
import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.route.EventRouter;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * The sending half of the {@link DeliveryPipeline}: routes rows and hands them to the producer, in order, waiting
 * for nothing. Rows of a parked key are left in the table, and so is the rest of a key once one of its rows
 * cannot be sent. A record larger than its topic takes may still fit once compressed, so it is sent alone
 * ({@link EventPublisher#publishAlone}) and the rest of its key parked until the broker answered: later events of
 * a key never overtake a record that may fail.
 */
final class Sender {

    private final EventRouter router;
    private final EventPublisher publisher;
    private final TopicLimits limits;
    private final KeyParking parking;
    private final OnPoison onPoison;

    Sender(EventRouter router, EventPublisher publisher, TopicLimits limits, KeyParking parking, OnPoison onPoison) {
        this.router = router;
        this.publisher = publisher;
        this.limits = limits;
        this.parking = parking;
        this.onPoison = onPoison;
    }

    SentBatch send(List<Item> items, boolean fromTable) {
        SentBatch sent = new SentBatch(fromTable, items.size());
        Set<String> parkedHere = new HashSet<>();
        for (Item item : items) {
            String key = item.key();
            if (parkedHere.contains(key)) {
                parking.parkIfHeld(key); // counted, so the key is looked at again before it is released
                sent.parked++;
                continue;
            }
            if (!fromTable && parking.parkIfHeld(key)) {
                sent.parked++;
                continue;
            }
            if (item.event() == null) {
                malformed(sent, parkedHere, item, item.malformedReason());
                continue;
            }
            long chars = item.event().estimatedBytes() + (key == null ? 0 : key.length());
            if (chars > publisher.maxRecordBytes()) {
                // Certainly too large (UTF-8 takes at least a byte per character): refused before it is encoded, so
                // the row is held once, and dead-lettered at once, its copy without the payload.
                OutboxEvent e = item.event();
                String reason = "the event is " + chars + " characters, more than the producer's max.request.size ("
                        + publisher.maxRecordBytes() + " bytes): Kafka refuses it every time";
                malformed(sent, parkedHere, Item.malformed(new DeadLetterTopic.DyingEvent(e.id(), e.aggregateType(),
                        e.aggregateId(), e.eventType(), null), reason), reason);
                continue;
            }
            ProducerRecord<byte[], byte[]> record;
            try {
                record = router.route(item.event());
            } catch (MalformedEventException e) {
                malformed(sent, parkedHere, item, e.getMessage());
                continue;
            }
            int limit = limits.maxMessageBytes(record.topic());
            if (limit == TopicLimits.UNUSABLE) {
                // A send would block for max.block.ms or fail again: the key waits for its topic.
                park(parkedHere, key, Reason.TOPIC, "topic " + record.topic());
                sent.parked++;
                continue;
            }
            boolean risky = TopicLimits.estimatedSize(record) > limit;
            CompletableFuture<RecordMetadata> ack = risky ? publisher.publishAlone(record) : publisher.publish(record);
            if (ack.isCompletedExceptionally()) {
                Throwable error = ack.handle((m, e) -> e).join();
                FailureClass failure = Failures.classify(error);
                if (failure == FailureClass.TOPIC) {
                    limits.unusable(record.topic(), Failures.unwrap(error));
                    park(parkedHere, key, Reason.TOPIC, "topic " + record.topic());
                    sent.parked++;
                    continue;
                }
                // Settled as a failure (the row's fault), or never handed to the producer because this thread was
                // interrupted (the source is stopping; the producer still takes later records, which would reach
                // Kafka before it): nothing of its key may follow it, the rest waits in the table.
                risky |= failure == FailureClass.ROW
                        || Failures.unwrap(error) instanceof org.apache.kafka.common.errors.InterruptException;
            }
            sent.items.add(item);
            sent.topics.add(record.topic());
            sent.futures.add(ack);
            sent.atRisk.add(risky);
            if (risky) {
                park(parkedHere, key, Reason.AT_RISK, "record larger than topic " + record.topic() + " takes");
            }
        }
        return sent;
    }

    /**
     * Routes an item that was sent before and hands it to the producer again, alone if the rest of its key waited
     * behind it ({@code alone}); for {@link InOrderResend}.
     */
    CompletableFuture<RecordMetadata> resend(Item item, boolean alone) {
        ProducerRecord<byte[], byte[]> record;
        try {
            record = router.route(item.event());
        } catch (MalformedEventException e) {
            return CompletableFuture.failedFuture(e); // routed the same way before; not expected
        }
        return alone ? publisher.publishAlone(record) : publisher.publish(record);
    }

    private void malformed(SentBatch sent, Set<String> parkedHere, Item item, String reason) {
        sent.malformed.add(item);
        sent.malformedReasons.add(reason);
        if (onPoison == OnPoison.BLOCK) {
            park(parkedHere, item.key(), Reason.DEAD_LETTER, "event " + item.id());
        }
    }

    private void park(Set<String> parkedHere, String key, Reason reason, String detail) {
        if (key != null) {
            parking.park(key, reason, detail);
            parkedHere.add(key);
        }
    }
}
