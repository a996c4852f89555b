package dev.outboxrelay.cdc;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import dev.outboxrelay.core.delivery.Backoff;
import dev.outboxrelay.core.delivery.DeadLetterTopic;
import dev.outboxrelay.core.delivery.FailureClass;
import dev.outboxrelay.core.delivery.Failures;
import dev.outboxrelay.core.delivery.KeyParking;
import dev.outboxrelay.core.delivery.KeyParking.Reason;
import dev.outboxrelay.core.delivery.OnPoison;
import dev.outboxrelay.core.delivery.TopicLimits;
import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.route.EventRouter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes batches of events in two halves: {@link #send} hands a batch to the producer without waiting, and
 * {@link #settle} waits for Kafka's answers and then marks (or deletes) the acknowledged rows. {@link Pipeline}
 * runs the halves on two threads; a caller may confirm a position only after {@code settle} returned for
 * everything before it.
 *
 * <p>Failures are sorted by {@link Failures#classify} (docs/cdc-mode.md):
 * <ul>
 *   <li>the row's fault counts an attempt (a malformed row all of them at once: it fails the same way every time)
 *       and <em>parks</em> the key ({@link KeyParking}): its events stay unsent in the table, the position moves
 *       on, and {@link ParkedKeyDrainer} publishes them from the table after a backoff; a dead letter keeps the
 *       key parked with {@code --on-poison block};</li>
 *   <li>the topic's fault (missing, not authorized) parks the key without an attempt until the topic is usable;
 *       a topic known to be unusable ({@link TopicLimits}) is not even sent to;</li>
 *   <li>broker-wide failures are retried with backoff, holding back the stream, without attempts.</li>
 * </ul>
 * A record larger than its topic's limit may still be rejected by the broker, so the rest of its key is parked
 * until it is answered: later events of a key never overtake a record that may fail.
 */
final class BatchPublisher {

    private static final Logger LOG = LoggerFactory.getLogger(BatchPublisher.class);
    private static final Duration MIN_BACKOFF = Duration.ofMillis(200);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);

    /**
     * One row to publish: the event, or why it cannot be made into one and the columns as read (for the
     * dead-letter topic's copy).
     */
    record Item(UUID id, String key, OutboxEvent event, String malformedReason, DeadLetterTopic.DyingEvent raw) {
        static Item of(OutboxEvent event) {
            return new Item(event.id(), event.aggregateId(), event, null, null);
        }

        static Item malformed(DeadLetterTopic.DyingEvent raw, String reason) {
            return new Item(raw.id(), raw.aggregateId(), null, reason, raw);
        }

        /** The dead-letter topic's copy of this row. */
        DeadLetterTopic.DyingEvent dying() {
            return raw != null ? raw : new DeadLetterTopic.DyingEvent(id, event.aggregateType(), event.aggregateId(),
                    event.eventType(), event.payload());
        }
    }


    private final EventRouter router;
    private final EventPublisher publisher;
    private final int maxAttempts;
    private final OnPoison onPoison;
    private final RelayListener listener;
    private final BooleanSupplier closed;
    private final KeyParking parking;
    private final TopicLimits limits;
    private final RowStore rows;
    /** Null without {@code --dead-letter-topic}. */
    private final DeadLetterTopic deadLetters;
    private volatile boolean inOutage;

    BatchPublisher(EventRouter router, EventPublisher publisher, TopicLimits limits, KeyParking parking,
                   CdcSettings settings, RelayListener listener, RowStore rows, BooleanSupplier closed) {
        this.router = router;
        this.publisher = publisher;
        this.limits = limits;
        this.parking = parking;
        this.maxAttempts = settings.maxAttempts();
        this.onPoison = settings.onPoison();
        this.listener = listener;
        this.closed = closed;
        this.rows = rows;
        this.deadLetters = settings.deadLetterTopic().map(t -> new DeadLetterTopic(t, publisher)).orElse(null);
    }

    boolean inOutage() {
        return inOutage;
    }

    /**
     * Routes every item and hands it to the producer, in order; waits for nothing. Items of a parked key are
     * left in the table (counted as parked), unless {@code draining}: then the drainer publishes that key.
     */
    SentBatch send(List<Item> items, boolean draining) {
        SentBatch sent = new SentBatch(draining, items.size());
        Set<String> parkedHere = new HashSet<>();
        for (Item item : items) {
            String key = item.key();
            if (parkedHere.contains(key)) {
                parking.parkIfHeld(key); // counted, so the drainer looks again before it releases the key
                sent.parked++;
                continue;
            }
            if (!draining && parking.parkIfHeld(key)) {
                sent.parked++;
                continue;
            }
            if (item.event() == null) {
                malformed(sent, parkedHere, item, item.malformedReason());
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
                risky |= failure == FailureClass.ROW; // settled as a failure; nothing of its key may follow it
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

    /**
     * Settles batches in order. When Kafka acknowledged every record of every batch and no key is parked (the
     * normal case), their rows are marked with one statement; otherwise each batch goes through {@link #settle}.
     */
    void settleAll(List<SentBatch> batches) throws InterruptedException {
        for (SentBatch s : batches) {
            s.awaitAnswers();
        }
        if (parking.size() == 0 && batches.stream().allMatch(SentBatch::allAcknowledged)) {
            List<UUID> ids = new ArrayList<>();
            for (SentBatch s : batches) {
                for (int i = 0; i < s.items.size(); i++) {
                    ids.add(s.items.get(i).id());
                    listener.published(s.topics.get(i), s.items.get(i).event().createdAt());
                }
            }
            rows.acknowledge(ids);
            if (inOutage && !ids.isEmpty()) {
                recovered();
            }
            for (SentBatch s : batches) {
                if (!s.items.isEmpty()) {
                    listener.batchPublished(s.items.size(), Duration.ofNanos(System.nanoTime() - s.startedNanos));
                }
            }
            return;
        }
        for (SentBatch s : batches) {
            settle(s);
        }
    }

    /**
     * Waits for Kafka's answers, marks, records failures and parks their keys; re-sends what failed broker-wide
     * after a backoff, until nothing of the batch waits for Kafka.
     */
    void settle(SentBatch first) throws InterruptedException {
        SentBatch sent = first;
        Backoff backoff = Backoff.exponential(MIN_BACKOFF, MAX_BACKOFF);
        int published = 0;
        while (true) {
            Round round = collect(sent);
            published += round.acked.size();
            List<Failure> failures = deadLetters == null || round.failures.isEmpty() ? round.failures
                    : withDeadLetterCopies(round);
            parkFailedKeys(failures, round.keys, rows.record(round.acked, failures, maxAttempts));
            if (round.retry.isEmpty()) {
                break;
            }
            long delay = backoff.nextDelayMillis();
            LOG.debug("Retrying {} event(s) in {} ms", round.retry.size(), delay);
            if (closed.getAsBoolean()) {
                throw new InterruptedException("relay is closing");
            }
            Thread.sleep(delay);
            sent = send(round.retry, first.draining);
        }
        if (published > 0) {
            listener.batchPublished(published, Duration.ofNanos(System.nanoTime() - first.startedNanos));
        }
    }

    private static final class Round {
        final List<UUID> acked = new ArrayList<>();
        final List<Failure> failures = new ArrayList<>();
        /** The failed rows by id: their keys, and what their dead-letter copy is made of. */
        final Map<UUID, Item> failedItems = new HashMap<>();
        final Map<UUID, String> keys = new HashMap<>();
        final List<Item> retry = new ArrayList<>();
        Throwable outage;

        void failed(Item item) {
            failedItems.put(item.id(), item);
            if (item.key() != null) {
                keys.put(item.id(), item.key());
            }
        }
    }

    /**
     * Publishes the dead-letter copies of the rows these failures will dead-letter, before they are recorded
     * ({@link DeadLetterTopic}); returns the failures to record. A row whose copy Kafka could not take is not
     * charged now: its key is parked for a retry.
     */
    private List<Failure> withDeadLetterCopies(Round round) throws InterruptedException {
        Map<UUID, Integer> charged = new HashMap<>();
        round.failures.forEach(f -> charged.merge(f.id(), 1, Integer::sum));
        Map<UUID, Integer> attempts = rows.attempts(charged.keySet());
        List<DeadLetterTopic.DyingEvent> dying = new ArrayList<>();
        charged.forEach((id, n) -> {
            Integer before = attempts.get(id);
            if (before != null && before + n >= maxAttempts) {
                dying.add(round.failedItems.get(id).dying());
            }
        });
        List<Failure> kept = deadLetters.publishCopies(dying, round.failures);
        Set<UUID> keptIds = new HashSet<>();
        kept.forEach(f -> keptIds.add(f.id()));
        for (UUID id : charged.keySet()) {
            if (!keptIds.contains(id)) {
                parking.park(round.keys.get(id), Reason.ROW_RETRY, "dead-letter copy of " + id + " not delivered");
            }
        }
        return kept;
    }

    private Round collect(SentBatch sent) throws InterruptedException {
        Round round = new Round();
        Set<String> broken = new HashSet<>();
        for (int i = 0; i < sent.malformed.size(); i++) {
            Item item = sent.malformed.get(i);
            String reason = sent.malformedReasons.get(i);
            // A malformed row fails identically on every attempt: use all attempts now.
            for (int a = 0; a < maxAttempts; a++) {
                round.failures.add(new Failure(item.id(), reason));
                round.failed(item);
            }
            listener.publishFailed(item.id(), reason);
        }
        for (int i = 0; i < sent.items.size(); i++) {
            Item item = sent.items.get(i);
            String key = item.key();
            try {
                sent.futures.get(i).get();
                limits.published(sent.topics.get(i));
                if (broken.contains(key) || (!sent.draining && overtook(key))) {
                    continue; // stays unsent: the drainer publishes it again after the failed event of its key
                }
                round.acked.add(item.id());
                listener.published(sent.topics.get(i), item.event().createdAt());
                if (sent.atRisk.get(i)) {
                    parking.dueNow(key);
                }
            } catch (ExecutionException e) {
                Throwable cause = Failures.unwrap(e);
                broken.add(key);
                switch (Failures.classify(cause)) {
                    case ROW -> {
                        String reason = Failures.describe(cause);
                        round.failures.add(new Failure(item.id(), reason));
                        round.failed(item);
                        listener.publishFailed(item.id(), reason);
                    }
                    case TOPIC -> {
                        limits.unusable(sent.topics.get(i), cause);
                        parking.park(key, Reason.TOPIC, "topic " + sent.topics.get(i));
                    }
                    case BROKER -> {
                        round.outage = cause;
                        round.retry.add(item);
                    }
                }
            }
        }
        if (round.outage != null && !inOutage) {
            inOutage = true;
            LOG.warn("Kafka is unavailable ({}); retrying {} event(s) until it is back", round.outage.toString(),
                    round.retry.size());
            listener.outage("kafka", round.outage);
        } else if (round.outage == null && inOutage && !round.acked.isEmpty()) {
            recovered();
        }
        return round;
    }

    /**
     * A streamed event acknowledged while its key is parked because an event of it failed: it may have overtaken
     * that event, so it is not marked and the drainer publishes it again after it. (A key parked only behind a
     * risky record sent nothing after it.)
     */
    private boolean overtook(String key) {
        Reason reason = parking.reasonOf(key);
        return reason != null && reason != Reason.AT_RISK;
    }

    private void recovered() {
        inOutage = false;
        LOG.info("Kafka is available again");
        listener.recovered();
    }

    private void parkFailedKeys(List<Failure> failures, Map<UUID, String> keys, Collection<UUID> dead) {
        Set<UUID> reported = new HashSet<>();
        for (Failure f : failures) {
            String key = keys.get(f.id());
            if (!reported.add(f.id())) {
                continue;
            }
            if (dead.contains(f.id())) {
                listener.deadLettered(f.id(), f.reason());
                if (onPoison == OnPoison.BLOCK) {
                    LOG.error("Event {} was dead-lettered after {} attempt(s); later events of its key wait until an"
                            + " operator resolves it: {}", f.id(), maxAttempts, f.reason());
                    parking.park(key, Reason.DEAD_LETTER, "event " + f.id());
                } else {
                    LOG.warn("Event {} was dead-lettered after {} attempt(s): {}", f.id(), maxAttempts, f.reason());
                    parking.dueNow(key); // if its retries parked the key, the drainer publishes the rest now
                }
            } else if (key != null) {
                // Retried from the table after a backoff (or found gone there, if the application deleted it).
                parking.park(key, Reason.ROW_RETRY, f.reason());
            } else {
                LOG.error("Event {} cannot be published ({}) and has no readable key; it stays unsent until the next"
                        + " start's rescan", f.id(), f.reason());
            }
        }
    }

    /** Closes the marking connection (the settling thread's). */
    void closeConnection() {
        rows.close();
    }
}
