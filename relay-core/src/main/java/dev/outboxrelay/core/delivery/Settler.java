package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.Heartbeat;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.core.delivery.KeyParking.Reason;
import dev.outboxrelay.core.publish.EventPublisher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The settling half of the {@link DeliveryPipeline}, on its one settling thread: reads Kafka's answers in
 * submission order, marks what was acknowledged, charges the row's faults, parks keys, copies dead letters to the
 * dead-letter topic, and re-sends what failed broker-wide after a backoff until Kafka takes it.
 */
final class Settler {

    private static final Logger LOG = LoggerFactory.getLogger(Settler.class);
    private static final Duration MIN_BACKOFF = Duration.ofMillis(200);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
    private static final int MAX_AMBIGUOUS_TRACKED = 10_000;

    private final int maxAttempts;
    private final OnPoison onPoison;
    private final KeyParking parking;
    private final TopicLimits limits;
    private final RowStore rows;
    private final RelayListener listener;
    /** Null without {@code --dead-letter-topic}. */
    private final DeadLetterTopic deadLetters;
    private final LongSupplier nanoClock;
    /** Rows failing ambiguously, since when: bounded, past the bound a row is simply charged. */
    private final Map<UUID, Long> ambiguousSince = new HashMap<>();
    private volatile boolean inOutage;
    /** Why, while {@link #inOutage}. */
    private volatile String outageReason;

    Settler(DeliverySettings settings, EventPublisher publisher, TopicLimits limits, KeyParking parking,
            RowStore rows, RelayListener listener) {
        this(settings, publisher, limits, parking, rows, listener, System::nanoTime);
    }

    Settler(DeliverySettings settings, EventPublisher publisher, TopicLimits limits, KeyParking parking,
            RowStore rows, RelayListener listener, LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
        this.maxAttempts = settings.maxAttempts();
        this.onPoison = settings.onPoison();
        this.limits = limits;
        this.parking = parking;
        this.rows = rows;
        this.listener = listener;
        this.deadLetters = settings.deadLetterTopic().map(t -> new DeadLetterTopic(t, publisher)).orElse(null);
    }

    boolean inOutage() {
        return inOutage;
    }

    String outageReason() {
        return inOutage ? outageReason : null;
    }

    /** Kafka has not answered a batch for a while: reported as an outage until something is acknowledged. */
    void slow(Duration waited) {
        if (!inOutage) {
            outageReason = "no acknowledgement for " + waited.toSeconds() + " s";
            inOutage = true;
            LOG.warn("Kafka has not acknowledged a batch for {} s; still waiting", waited.toSeconds());
            listener.outage("kafka", new TimeoutException("no acknowledgement from Kafka"));
        }
    }

    /**
     * Settles answered batches in order. When Kafka acknowledged every record and no key is parked (the normal
     * case), their rows are marked with one statement; otherwise each batch is settled on its own.
     */
    void settleAll(List<SentBatch> batches, Sender sender) throws InterruptedException {
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
            settle(s, sender);
        }
    }

    /** Settles one batch, re-sending what failed broker-wide after a backoff until nothing of it waits for Kafka. */
    private void settle(SentBatch first, Sender sender) throws InterruptedException {
        SentBatch sent = first;
        Backoff backoff = Backoff.exponential(MIN_BACKOFF, MAX_BACKOFF);
        int published = 0;
        while (true) {
            Heartbeat.beat();
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
            Thread.sleep(delay);
            sent = sender.send(round.retry, first.fromTable);
        }
        if (published > 0) {
            listener.batchPublished(published, Duration.ofNanos(System.nanoTime() - first.startedNanos));
        }
    }

    private static final class Round {
        final List<UUID> acked = new ArrayList<>();
        final List<Failure> failures = new ArrayList<>();
        /** The failed rows by id: what their dead-letter copy is made of. */
        final Map<UUID, Item> failedItems = new HashMap<>();
        final Map<UUID, String> keys = new HashMap<>();
        final List<Item> retry = new ArrayList<>();
        Throwable outage;

        void failed(Item item, String reason) {
            failures.add(new Failure(item.id(), reason));
            failedItems.put(item.id(), item);
            if (item.key() != null) {
                keys.put(item.id(), item.key());
            }
        }
    }

    private Round collect(SentBatch sent) throws InterruptedException {
        Round round = new Round();
        Set<String> broken = new HashSet<>();
        for (int i = 0; i < sent.malformed.size(); i++) {
            Item item = sent.malformed.get(i);
            String reason = sent.malformedReasons.get(i);
            // A malformed row fails identically on every attempt: it uses all of them now.
            for (int a = 0; a < maxAttempts; a++) {
                round.failed(item, reason);
            }
            listener.publishFailed(item.id(), reason);
        }
        for (int i = 0; i < sent.items.size(); i++) {
            Item item = sent.items.get(i);
            String key = item.key();
            try {
                sent.futures.get(i).get();
                limits.published(sent.topics.get(i));
                if (broken.contains(key) || (!sent.fromTable && overtook(key))) {
                    continue; // stays unsent: published again from the table after the failed event of its key
                }
                round.acked.add(item.id());
                if (!ambiguousSince.isEmpty()) {
                    ambiguousSince.remove(item.id());
                }
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
                        // A record too large for Kafka fails the same way every time: it uses all attempts now.
                        for (int a = Failures.failsEveryTime(cause) ? maxAttempts : 1; a > 0; a--) {
                            round.failed(item, reason);
                        }
                        listener.publishFailed(item.id(), reason);
                    }
                    case AMBIGUOUS -> {
                        String reason = Failures.describe(cause);
                        listener.publishFailed(item.id(), reason);
                        if (stillInGrace(item.id())) {
                            parking.park(key, Reason.ROW_RETRY, reason); // retried with backoff, no attempt
                            if (key != null) {
                                round.keys.put(item.id(), key); // its hold is written to the table too
                            }
                        } else {
                            round.failed(item, reason);
                        }
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
        if (round.outage != null) {
            outage(round.outage, round.retry.size());
        } else if (inOutage && !round.acked.isEmpty()) {
            recovered();
        }
        return round;
    }

    /** Kafka failed broker-wide: reported once, until something is acknowledged again. */
    void outage(Throwable cause, int retrying) {
        outageReason = Failures.typeName(cause);
        if (!inOutage) {
            inOutage = true;
            LOG.warn("Kafka is unavailable ({}); retrying {} event(s) until it is back", cause.toString(), retrying);
            listener.outage("kafka", cause);
        }
    }

    /** Something was acknowledged: an outage, if any, is over. */
    void acknowledged() {
        if (inOutage) {
            recovered();
        }
    }

    /** Whether the row's ambiguous failures began less than {@link Failures#AMBIGUOUS_GRACE} ago. */
    boolean stillInGrace(UUID id) {
        long now = nanoClock.getAsLong();
        Long since = ambiguousSince.get(id);
        if (since == null) {
            if (ambiguousSince.size() >= MAX_AMBIGUOUS_TRACKED) {
                return false;
            }
            ambiguousSince.put(id, now);
            return true;
        }
        if (now - since < Failures.AMBIGUOUS_GRACE.toNanos()) {
            return true;
        }
        ambiguousSince.remove(id);
        return false;
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
            if (!keptIds.contains(id) && round.keys.get(id) != null) {
                parking.park(round.keys.get(id), Reason.ROW_RETRY, "dead-letter copy of " + id + " not delivered");
            }
        }
        return kept;
    }

    /**
     * An event acknowledged while its key is parked because an event of it failed: it may have overtaken that
     * event, so it is not marked and is published again after it. (A key parked only behind a risky record sent
     * nothing after it.)
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

    /**
     * Parks the keys of rows that failed, by what became of them ({@code dead}: dead-lettered by this round), and
     * writes the holds for a retry to the table, so that a restart or a takeover keeps them ({@code keys}: the failed
     * rows' keys by id, also of rows held without an attempt).
     */
    void parkFailedKeys(List<Failure> failures, Map<UUID, String> keys, Collection<UUID> dead)
            throws InterruptedException {
        Set<UUID> retried = new HashSet<>();
        for (Failure f : failures) {
            if (!dead.contains(f.id()) && keys.get(f.id()) != null) {
                retried.add(f.id());
            }
        }
        Map<UUID, Integer> attempts = retried.isEmpty() ? Map.of() : rows.attempts(retried);
        Set<UUID> reported = new HashSet<>();
        for (Failure f : failures) {
            if (!reported.add(f.id())) {
                continue;
            }
            String key = keys.get(f.id());
            if (dead.contains(f.id())) {
                listener.deadLettered(f.id(), f.reason());
                if (onPoison == OnPoison.BLOCK) {
                    LOG.error("Event {} was dead-lettered after {} attempt(s); later events of its key wait until an"
                            + " operator resolves it: {}", f.id(), maxAttempts, f.reason());
                    if (key != null) {
                        parking.park(key, Reason.DEAD_LETTER, "event " + f.id());
                    }
                } else {
                    LOG.warn("Event {} was dead-lettered after {} attempt(s): {}", f.id(), maxAttempts, f.reason());
                    if (key != null) {
                        parking.dueNow(key); // if its retries parked the key, the rest is published now
                    }
                }
            } else if (key != null) {
                // Retried from the table after a backoff (or found gone there, if the application deleted it).
                parking.parkForRetry(key, f.reason(), attempts.getOrDefault(f.id(), 1));
            } else {
                LOG.error("Event {} cannot be published ({}) and has no readable key; it stays unsent until the"
                        + " source reads it again", f.id(), f.reason());
            }
        }
        Map<UUID, Duration> holds = new HashMap<>();
        keys.forEach((id, key) -> {
            Duration due = parking.retryDueIn(key);
            if (due != null) {
                holds.put(id, due);
            }
        });
        rows.holdForRetry(holds);
    }

    void close() {
        rows.close();
    }
}
