package dev.outboxrelay.cdc;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.acknowledge.Acknowledger;
import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import dev.outboxrelay.core.delivery.FailureClass;
import dev.outboxrelay.core.delivery.Failures;
import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.route.EventRouter;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
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
 * {@link #settle} waits for Kafka's answers and then marks (or deletes) the acknowledged rows, or records the
 * failures and retries them, until every event of the batch is settled. {@link Pipeline} runs the halves on two
 * threads; a caller may confirm a position only after {@code settle} returned for everything before it.
 *
 * <p>Failure semantics (documented in docs/cdc-mode.md): a Kafka outage (retriable error) is retried with
 * backoff forever without counting attempts; a per-record failure is recorded on the row (attempts,
 * last_error) and retried with backoff until the row is dead-lettered after max attempts (the settling waits,
 * a bounded BLOCK, then SKIPs the dead letter); a malformed row fails the same way every time, so its
 * attempts are used up at once and it is dead-lettered without waiting.
 */
final class BatchPublisher {

    private static final Logger LOG = LoggerFactory.getLogger(BatchPublisher.class);
    private static final Duration MIN_BACKOFF = Duration.ofMillis(200);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);

    /** One row to publish: the event, or why it cannot be made into one. */
    record Item(UUID id, OutboxEvent event, String malformedReason) {
        static Item of(OutboxEvent event) {
            return new Item(event.id(), event, null);
        }

        static Item malformed(UUID id, String reason) {
            return new Item(id, null, reason);
        }
    }

    /** A batch handed to the producer: the records sent, their pending answers, and the rows that failed locally. */
    static final class Sent {
        final List<Item> items = new ArrayList<>();
        final List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
        final List<String> topics = new ArrayList<>();
        final List<Item> malformed = new ArrayList<>();
        final List<String> malformedReasons = new ArrayList<>();
        final long startedNanos = System.nanoTime();
        private int size;

        /** Rows in the batch as submitted: sent and failed locally. */
        int size() {
            return size;
        }

        /** True once Kafka answered every record. */
        boolean answered() {
            for (CompletableFuture<?> f : futures) {
                if (!f.isDone()) {
                    return false;
                }
            }
            return true;
        }

        /** True when every record was acknowledged and nothing failed locally: settling is one statement. */
        boolean allAcknowledged() {
            if (!malformed.isEmpty()) {
                return false;
            }
            for (CompletableFuture<?> f : futures) {
                if (!f.isDone() || f.isCompletedExceptionally()) {
                    return false;
                }
            }
            return true;
        }

        void awaitAnswers() throws InterruptedException {
            for (CompletableFuture<?> f : futures) {
                try {
                    f.get();
                } catch (ExecutionException e) {
                    // judged by settle
                }
            }
        }
    }

    private final EventRouter router;
    private final EventPublisher publisher;
    private final Acknowledger acknowledger;
    private final int maxAttempts;
    private final RelayListener listener;
    private final Database database;
    private final BooleanSupplier closed;
    private Connection connection;
    private volatile boolean inOutage;

    BatchPublisher(EventRouter router, EventPublisher publisher, Acknowledger acknowledger, int maxAttempts,
                   RelayListener listener, Database database, BooleanSupplier closed) {
        this.router = router;
        this.publisher = publisher;
        this.acknowledger = acknowledger;
        this.maxAttempts = maxAttempts;
        this.listener = listener;
        this.database = database;
        this.closed = closed;
    }

    boolean inOutage() {
        return inOutage;
    }

    /** Routes every item and hands it to the producer, in order; waits for nothing. */
    Sent send(List<Item> items) {
        Sent sent = new Sent();
        sent.size = items.size();
        for (Item item : items) {
            if (item.event() == null) {
                sent.malformed.add(item);
                sent.malformedReasons.add(item.malformedReason());
                continue;
            }
            ProducerRecord<byte[], byte[]> record;
            try {
                record = router.route(item.event());
            } catch (MalformedEventException e) {
                sent.malformed.add(item);
                sent.malformedReasons.add(e.getMessage());
                continue;
            }
            sent.items.add(item);
            sent.topics.add(record.topic());
            sent.futures.add(publisher.publish(record));
        }
        return sent;
    }

    /**
     * Settles batches in order. When Kafka acknowledged every record of every batch (the normal case), their rows
     * are marked with one statement; otherwise each batch goes through {@link #settle(Sent)}.
     */
    void settleAll(List<Sent> batches) throws InterruptedException {
        for (Sent s : batches) {
            s.awaitAnswers();
        }
        if (batches.stream().allMatch(Sent::allAcknowledged)) {
            List<UUID> ids = new ArrayList<>();
            for (Sent s : batches) {
                for (int i = 0; i < s.items.size(); i++) {
                    ids.add(s.items.get(i).id());
                    listener.published(s.topics.get(i), s.items.get(i).event().createdAt());
                }
            }
            markAcknowledged(ids);
            if (inOutage && !ids.isEmpty()) {
                recovered();
            }
            for (Sent s : batches) {
                if (!s.items.isEmpty()) {
                    listener.batchPublished(s.items.size(), Duration.ofNanos(System.nanoTime() - s.startedNanos));
                }
            }
            return;
        }
        for (Sent s : batches) {
            settle(s);
        }
    }

    /** Publishes and settles all items, in order per key; returns only when every item is settled. */
    void publish(List<Item> items) throws InterruptedException {
        settle(send(items));
    }

    /** Waits for Kafka's answers, marks, records failures, and re-sends what must be retried until all settled. */
    void settle(Sent first) throws InterruptedException {
        Sent sent = first;
        Duration backoff = MIN_BACKOFF;
        int published = 0;
        Map<UUID, Integer> attempts = new HashMap<>();
        while (true) {
            Round round = collect(sent);
            round.attempts = attempts;
            published += round.acked.size();
            settle(round);
            if (round.retry.isEmpty()) {
                break;
            }
            LOG.debug("Retrying {} event(s) in {} ms", round.retry.size(), backoff.toMillis());
            sleep(backoff);
            backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
            sent = send(round.retry);
        }
        if (published > 0) {
            listener.batchPublished(published, Duration.ofNanos(System.nanoTime() - first.startedNanos));
        }
    }

    private static final class Round {
        final List<UUID> acked = new ArrayList<>();
        final List<Failure> failures = new ArrayList<>();
        final Map<UUID, Item> failedItems = new HashMap<>();
        final List<Item> retry = new ArrayList<>();
        Map<UUID, Integer> attempts;
        Throwable outage;
    }

    private Round collect(Sent sent) throws InterruptedException {
        Round round = new Round();
        for (int i = 0; i < sent.malformed.size(); i++) {
            failMalformed(round, sent.malformed.get(i), sent.malformedReasons.get(i));
        }
        for (int i = 0; i < sent.items.size(); i++) {
            Item item = sent.items.get(i);
            try {
                sent.futures.get(i).get();
                round.acked.add(item.id());
                listener.published(sent.topics.get(i), item.event().createdAt());
            } catch (ExecutionException e) {
                Throwable cause = Failures.unwrap(e);
                if (Failures.classify(cause) != FailureClass.ROW) {
                    // Neither a missing topic, a revoked ACL nor a broken producer is the row's fault: no attempt.
                    round.outage = cause;
                    round.retry.add(item);
                } else {
                    String reason = Failures.describe(cause);
                    round.failures.add(new Failure(item.id(), reason));
                    round.failedItems.put(item.id(), item);
                    listener.publishFailed(item.id(), reason);
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

    private void recovered() {
        inOutage = false;
        LOG.info("Kafka is available again");
        listener.recovered();
    }

    private void failMalformed(Round round, Item item, String reason) {
        // A malformed row fails identically on every attempt: use all attempts now rather than block the stream.
        for (int i = 0; i < maxAttempts; i++) {
            round.failures.add(new Failure(item.id(), reason));
        }
        listener.publishFailed(item.id(), reason);
    }

    /** Marks rows Kafka acknowledged; retries the database until it answers. */
    private void markAcknowledged(List<UUID> ids) throws InterruptedException {
        if (ids.isEmpty()) {
            return;
        }
        Duration backoff = MIN_BACKOFF;
        while (true) {
            try {
                acknowledger.acknowledge(connection(), ids);
                return;
            } catch (SQLException e) {
                closeConnection();
                LOG.warn("Cannot mark {} published event(s) in the database ({}); retrying", ids.size(),
                        e.getMessage());
                sleep(backoff);
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
            }
        }
    }

    /** Marks acknowledged rows and records failures; retries the database until it answers. */
    private void settle(Round round) throws InterruptedException {
        Duration backoff = MIN_BACKOFF;
        while (true) {
            try {
                Connection c = connection();
                acknowledger.acknowledge(c, round.acked);
                if (!round.failures.isEmpty()) {
                    Collection<UUID> dead = acknowledger.recordFailures(c, round.failures, maxAttempts);
                    for (UUID id : dead) {
                        LOG.warn("Event {} was dead-lettered after {} attempt(s)", id, maxAttempts);
                        listener.deadLettered(id, lastReason(round, id));
                    }
                    for (Failure f : round.failures) {
                        Item item = round.failedItems.remove(f.id());
                        // The in-memory count bounds retries of a row the application deleted meanwhile.
                        if (item != null && !dead.contains(f.id())
                                && round.attempts.merge(f.id(), 1, Integer::sum) < maxAttempts) {
                            round.retry.add(item);
                        }
                    }
                    // A malformed row the application already deleted cannot be dead-lettered: say so and go on.
                    round.failures.stream().map(Failure::id).distinct()
                            .filter(id -> !dead.contains(id) && round.retry.stream().noneMatch(it -> it.id().equals(id)))
                            .forEach(id -> LOG.error("Event {} cannot be published ({}) and its row no longer exists;"
                                    + " skipped", id, lastReason(round, id)));
                }
                return;
            } catch (SQLException e) {
                closeConnection();
                LOG.warn("Cannot mark {} published event(s) in the database ({}); retrying", round.acked.size(),
                        e.getMessage());
                sleep(backoff);
                backoff = backoff.multipliedBy(2).compareTo(MAX_BACKOFF) > 0 ? MAX_BACKOFF : backoff.multipliedBy(2);
            }
        }
    }

    private static String lastReason(Round round, UUID id) {
        String reason = null;
        for (Failure f : round.failures) {
            if (f.id().equals(id)) {
                reason = f.reason();
            }
        }
        return reason;
    }

    /** The connection used for marking, by the settling thread only. */
    Connection connection() throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = database.open();
            connection.setAutoCommit(true);
        }
        return connection;
    }

    void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // already broken
            }
            connection = null;
        }
    }

    private void sleep(Duration d) throws InterruptedException {
        if (closed.getAsBoolean()) {
            throw new InterruptedException("relay is closing");
        }
        Thread.sleep(d.toMillis());
    }
}
