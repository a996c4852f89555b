package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.route.EventRouter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.internals.RecordHeaders;

/**
 * {@code --dead-letter-topic}: a copy of each event about to be dead-lettered, published <em>before</em> its row
 * is marked dead, the same in every mode. The copy has the event's key and payload and headers {@code id},
 * {@code type}, {@code aggregate_type} and {@code dead_letter_reason}. When Kafka is unavailable the row is not
 * dead-lettered yet (its failure is left out, so it is tried again); when the topic rejects the copy too, the
 * row is dead-lettered with that noted in its reason.
 */
public final class DeadLetterTopic {

    /** Header carrying why the event was dead-lettered. */
    public static final String HEADER_REASON = "dead_letter_reason";
    private static final long ACK_WAIT_SECONDS = 30;

    /** What the copy is made of: the row's contract columns as read (the payload as the value carries it). */
    public record DyingEvent(UUID id, String aggregateType, String aggregateId, String eventType, byte[] payload) {

        /** Characters of its text columns and its payload's bytes: about its bytes in memory. */
        long estimatedBytes() {
            return len(aggregateType) + len(aggregateId) + len(eventType) + (payload == null ? 0 : payload.length);
        }

        private static long len(String s) {
            return s == null ? 0 : s.length();
        }
    }

    private final String topic;
    private final EventPublisher publisher;

    /** Copies go to {@code topic} through {@code publisher}. */
    public DeadLetterTopic(String topic, EventPublisher publisher) {
        this.topic = topic;
        this.publisher = publisher;
    }

    /**
     * Publishes a copy of each dying event (once per id) and waits for Kafka; returns the failures to record:
     * those of events whose copy could not be delivered because Kafka is unavailable are left out, those whose copy
     * the topic rejected carry that in their reason.
     */
    public List<Failure> publishCopies(List<DyingEvent> dying, List<Failure> failures) throws InterruptedException {
        if (dying.isEmpty()) {
            return failures;
        }
        Map<UUID, String> reasons = new HashMap<>();
        failures.forEach(f -> reasons.putIfAbsent(f.id(), f.reason()));
        Map<UUID, CompletableFuture<RecordMetadata>> acks = new LinkedHashMap<>();
        for (DyingEvent event : dying) {
            acks.computeIfAbsent(event.id(), id -> publisher.publish(record(event, reasons.get(id))));
        }
        Set<UUID> withheld = new HashSet<>();
        Map<UUID, String> rejectedToo = new HashMap<>();
        for (Map.Entry<UUID, CompletableFuture<RecordMetadata>> e : acks.entrySet()) {
            try {
                e.getValue().get(ACK_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException ex) {
                Throwable error = Failures.unwrap(ex);
                if (Failures.classify(error) == FailureClass.ROW) {
                    rejectedToo.put(e.getKey(), "; the dead-letter topic rejected it too: "
                            + error.getClass().getSimpleName());
                } else {
                    withheld.add(e.getKey());
                }
            }
        }
        List<Failure> result = new ArrayList<>(failures.size());
        for (Failure f : failures) {
            if (!withheld.contains(f.id())) {
                String suffix = rejectedToo.get(f.id());
                result.add(suffix == null ? f : new Failure(f.id(), f.reason() + suffix));
            }
        }
        return result;
    }

    private ProducerRecord<byte[], byte[]> record(DyingEvent event, String reason) {
        RecordHeaders headers = new RecordHeaders();
        headers.add(EventRouter.HEADER_ID, utf8(event.id().toString()));
        if (event.eventType() != null) {
            headers.add(EventRouter.HEADER_TYPE, utf8(event.eventType()));
        }
        if (event.aggregateType() != null) {
            headers.add(EventRouter.HEADER_AGGREGATE_TYPE, utf8(event.aggregateType()));
        }
        headers.add(HEADER_REASON, utf8(reason == null ? "unknown" : reason));
        return new ProducerRecord<>(topic, null, event.aggregateId() == null ? null : utf8(event.aggregateId()),
                event.payload(), headers);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
