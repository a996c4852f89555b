package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.Heartbeat;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.core.delivery.KeyParking.Reason;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.publish.FencedException;
import dev.outboxrelay.core.publish.StateTopic;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.InvalidProducerEpochException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Settling under {@code --delivery exactly-once}: the records of a settle group and the {@link StateTopic} record
 * listing their rows are one Kafka transaction; the rows are marked only after it committed. A failed record makes
 * Kafka abort the whole transaction, so the group is sent again in a new one without the keys that failed (charged,
 * parked or dead-lettered as in {@link Settler}; their rows wait in the table and follow later, in order). Nothing of
 * an aborted transaction ever reaches a {@code read_committed} consumer, and nothing committed is sent again: a
 * restart first marks what the last committed transaction listed ({@link #open}).
 */
final class TransactionalSettler {

    private static final Logger LOG = LoggerFactory.getLogger(TransactionalSettler.class);
    private static final Duration MIN_BACKOFF = Duration.ofMillis(200);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
    private static final Duration READ_TIMEOUT = Duration.ofSeconds(30);
    /** Fault point for the project's own crash tests: halt the JVM after this many commits, before marking. */
    static final String HALT_AFTER_COMMITS = "outboxrelay.test.haltAfterCommits";

    private final Settler settler;
    private final EventPublisher publisher;
    private final StateTopic state;
    private final String transactionalId;
    private final KeyParking parking;
    private final TopicLimits limits;
    private final RowStore rows;
    private final RelayListener listener;
    private final int maxAttempts;
    private final long haltAfterCommits = Long.getLong(HALT_AFTER_COMMITS, -1);
    /** Rows an earlier instance's last transaction committed; marked at open, never sent again by this pipeline. */
    private final Set<UUID> committedBefore = ConcurrentHashMap.newKeySet();
    private int partitions;
    private long commits;

    TransactionalSettler(Settler settler, DeliverySettings settings, EventPublisher publisher, StateTopic state,
                         String transactionalId, TopicLimits limits, KeyParking parking, RowStore rows,
                         RelayListener listener) {
        this.settler = settler;
        this.publisher = publisher;
        this.state = state;
        this.transactionalId = transactionalId;
        this.limits = limits;
        this.parking = parking;
        this.rows = rows;
        this.listener = listener;
        this.maxAttempts = settings.maxAttempts();
    }

    /**
     * Takes the transactional id (fencing any other instance and aborting its open transaction), reads the last
     * committed position and marks its rows, then begins the first transaction. Retries while Kafka is unavailable.
     */
    void open(BooleanSupplier closed) throws InterruptedException {
        Backoff backoff = Backoff.exponential(MIN_BACKOFF, MAX_BACKOFF);
        while (!closed.getAsBoolean()) {
            Heartbeat.beat();
            try {
                publisher.initTransactions();
                StateTopic.Position position = state.read(READ_TIMEOUT);
                partitions = position.partitions();
                List<UUID> ids = position.committedIds();
                if (!ids.isEmpty()) {
                    rows.acknowledge(ids);
                    committedBefore.addAll(ids);
                }
                publisher.beginTransaction();
                settler.acknowledged();
                LOG.info("Exactly-once delivery as '{}' (state topic {}): {} row(s) of the last committed transaction"
                        + " marked", transactionalId, state.topic(), ids.size());
                return;
            } catch (InterruptException e) {
                throw closing();
            } catch (ProducerFencedException | InvalidProducerEpochException e) {
                listener.fenced();
                throw new FencedException(transactionalId, e);
            } catch (AuthorizationException | UnsupportedVersionException e) {
                throw new IllegalStateException("exactly-once delivery cannot start: " + e.getClass().getSimpleName()
                        + ": " + e.getMessage(), e);
            } catch (KafkaException e) {
                settler.outage(e, 0);
                Thread.sleep(backoff.nextDelayMillis());
            }
        }
        throw new InterruptedException("relay is closing");
    }

    /** True for a row an earlier instance already committed to Kafka (marked at open): it is not sent again. */
    boolean committedBefore(UUID id) {
        return !committedBefore.isEmpty() && committedBefore.contains(id);
    }

    /**
     * Commits {@code group} (everything sent since the last commit; the caller keeps senders out meanwhile) with its
     * position record, re-sending in new transactions without the keys that failed until one commits; begins the
     * next transaction. Returns what the committed transaction holds.
     */
    Committed commit(List<SentBatch> group, Sender sender, Duration slowAck) throws InterruptedException {
        Backoff backoff = Backoff.exponential(MIN_BACKOFF, MAX_BACKOFF);
        List<SentBatch> round = group;
        Committed done = new Committed();
        group.forEach(done::malformed);
        while (true) {
            Heartbeat.beat();
            for (SentBatch b : round) {
                while (!b.awaitAnswers(System.nanoTime() + slowAck.toNanos())) {
                    Heartbeat.beat();
                    settler.slow(slowAck);
                }
            }
            List<Item> sentItems = new ArrayList<>();
            List<String> topics = new ArrayList<>();
            List<Throwable> causes = new ArrayList<>();
            for (SentBatch b : round) {
                for (int i = 0; i < b.items.size(); i++) {
                    sentItems.add(b.items.get(i));
                    topics.add(b.topics.get(i));
                    causes.add(cause(b.futures.get(i)));
                }
            }
            boolean anyFailed = causes.stream().anyMatch(c -> c != null);
            if (sentItems.isEmpty()) {
                done.committed(round); // nothing sent (heartbeats, parked or malformed rows): no transaction to end
                return done;
            }
            if (!anyFailed && tryCommit(sentItems)) {
                done.committed(round);
                haltIfAsked();
                return done;
            }
            abort();
            Set<String> broken = anyFailed ? judge(sentItems, topics, causes, done) : Set.of();
            if (broken.isEmpty()) {
                Thread.sleep(backoff.nextDelayMillis()); // broker-wide: wait, then everything again
            }
            List<SentBatch> next = new ArrayList<>(round.size());
            for (SentBatch b : round) {
                List<Item> again = new ArrayList<>(b.items.size());
                for (Item item : b.items) {
                    if (!broken.contains(item.key())) {
                        again.add(item);
                    }
                }
                SentBatch resent = sender.send(again, b.fromTable);
                done.malformed(resent);
                next.add(resent);
            }
            round = next;
        }
    }

    /** The rows the committed transaction published, and what failed without being sent. */
    static final class Committed {
        final List<SentBatch> batches = new ArrayList<>();
        final List<Failure> malformed = new ArrayList<>();
        final Map<UUID, String> keys = new HashMap<>();

        void malformed(SentBatch b) {
            for (int i = 0; i < b.malformed.size(); i++) {
                Item item = b.malformed.get(i);
                if (item.key() != null) {
                    keys.put(item.id(), item.key());
                }
                malformed.add(new Failure(item.id(), b.malformedReasons.get(i)));
            }
        }

        void committed(List<SentBatch> round) {
            batches.addAll(round);
        }
    }

    /** After the commit, without holding senders back: marks the committed rows and records the malformed ones. */
    void settle(Committed done, long startedNanos) throws InterruptedException {
        List<UUID> ids = new ArrayList<>();
        for (SentBatch b : done.batches) {
            for (int i = 0; i < b.items.size(); i++) {
                ids.add(b.items.get(i).id());
                listener.published(b.topics.get(i), b.items.get(i).event().createdAt());
                limits.published(b.topics.get(i));
                if (b.atRisk.get(i)) {
                    parking.dueNow(b.items.get(i).key());
                }
            }
        }
        if (done.malformed.isEmpty()) {
            rows.acknowledge(ids);
        } else {
            List<Failure> charged = new ArrayList<>();
            for (Failure f : done.malformed) {
                listener.publishFailed(f.id(), f.reason());
                for (int a = 0; a < maxAttempts; a++) {
                    charged.add(f); // a malformed row fails the same way every time: all its attempts now
                }
            }
            settler.parkFailedKeys(charged, done.keys, rows.record(ids, charged, maxAttempts));
        }
        if (!ids.isEmpty()) {
            settler.acknowledged();
            listener.batchPublished(ids.size(), Duration.ofNanos(System.nanoTime() - startedNanos));
        }
    }

    private static Throwable cause(CompletableFuture<RecordMetadata> f) throws InterruptedException {
        try {
            f.get();
            return null;
        } catch (ExecutionException e) {
            return Failures.unwrap(e);
        }
    }

    /** Writes the position and commits; false when Kafka aborted the transaction instead. */
    private boolean tryCommit(List<Item> items) throws InterruptedException {
        List<UUID> ids = new ArrayList<>(items.size());
        items.forEach(i -> ids.add(i.id()));
        try {
            CompletableFuture<RecordMetadata> position = publisher.publish(state.record(partitions, ids));
            Throwable failed = position.isCompletedExceptionally() ? cause(position) : null;
            if (failed != null) {
                fencedOrFatal(failed);
                settler.outage(failed, items.size());
                return false;
            }
            while (true) {
                try {
                    publisher.commitTransaction();
                    commits++;
                    listener.transactionEnded(true);
                    publisher.beginTransaction();
                    return true;
                } catch (TimeoutException e) {
                    // The commit's outcome is unknown: Kafka's rule is to call it again, never to abort.
                    settler.slow(Duration.ofMillis(1));
                    Heartbeat.beat();
                }
            }
        } catch (InterruptException e) {
            throw closing(); // the pipeline is closing: the transaction stays open, the next instance aborts it
        } catch (KafkaException e) {
            fencedOrFatal(e);
            settler.outage(e, items.size());
            return false;
        }
    }

    private void abort() throws InterruptedException {
        Backoff backoff = Backoff.exponential(MIN_BACKOFF, MAX_BACKOFF);
        while (true) {
            try {
                publisher.abortTransaction();
                listener.transactionEnded(false);
                publisher.beginTransaction();
                return;
            } catch (InterruptException e) {
                throw closing();
            } catch (TimeoutException e) {
                Heartbeat.beat();
                Thread.sleep(backoff.nextDelayMillis());
            } catch (KafkaException e) {
                fencedOrFatal(e);
                throw new IllegalStateException("exactly-once: Kafka refused to abort a transaction: " + e, e);
            }
        }
    }

    /** Kafka's {@link InterruptException} as the pipeline's own signal to stop: the interrupt is consumed. */
    private static InterruptedException closing() {
        Thread.interrupted();
        return new InterruptedException("relay is closing");
    }

    private void fencedOrFatal(Throwable e) {
        if (e instanceof ProducerFencedException || e instanceof InvalidProducerEpochException) {
            listener.fenced();
            throw new FencedException(transactionalId, e);
        }
        if (e instanceof AuthorizationException) {
            throw new IllegalStateException("exactly-once delivery stopped: " + e.getClass().getSimpleName() + ": "
                    + e.getMessage(), e);
        }
    }

    /**
     * Classifies the failures of an aborted round as {@link Settler} does and returns the keys that stay in the table
     * (their rows follow later, in order). Broker-wide failures next to a row's or topic's are only the abort's
     * consequence: those rows are simply sent again. Broker-wide failures alone are an outage.
     */
    private Set<String> judge(List<Item> items, List<String> topics, List<Throwable> causes, Committed done)
            throws InterruptedException {
        Set<String> broken = new HashSet<>();
        List<Failure> charged = new ArrayList<>();
        Map<UUID, String> keys = new HashMap<>();
        Throwable brokerWide = null;
        for (int i = 0; i < items.size(); i++) {
            Throwable cause = causes.get(i);
            if (cause == null) {
                continue;
            }
            fencedOrFatal(cause);
            Item item = items.get(i);
            String key = item.key();
            switch (Failures.classify(cause)) {
                case ROW -> {
                    String reason = Failures.describe(cause);
                    for (int a = Failures.failsEveryTime(cause) ? maxAttempts : 1; a > 0; a--) {
                        charged.add(new Failure(item.id(), reason));
                    }
                    keys.put(item.id(), key);
                    listener.publishFailed(item.id(), reason);
                    broken.add(key);
                }
                case AMBIGUOUS -> {
                    String reason = Failures.describe(cause);
                    listener.publishFailed(item.id(), reason);
                    if (settler.stillInGrace(item.id())) {
                        parking.park(key, Reason.ROW_RETRY, reason);
                    } else {
                        charged.add(new Failure(item.id(), reason));
                        keys.put(item.id(), key);
                    }
                    broken.add(key);
                }
                case TOPIC -> {
                    limits.unusable(topics.get(i), cause);
                    parking.park(key, Reason.TOPIC, "topic " + topics.get(i));
                    broken.add(key);
                }
                case BROKER -> brokerWide = brokerWide == null ? cause : brokerWide;
            }
        }
        if (!charged.isEmpty()) {
            settler.parkFailedKeys(charged, keys, rows.record(List.of(), charged, maxAttempts));
        }
        if (broken.isEmpty() && brokerWide != null) {
            settler.outage(brokerWide, items.size());
        }
        return broken;
    }

    private void haltIfAsked() {
        if (haltAfterCommits > 0 && commits >= haltAfterCommits) {
            LOG.warn("Fault point {}={}: halting after a commit, before marking its rows", HALT_AFTER_COMMITS,
                    haltAfterCommits);
            Runtime.getRuntime().halt(137);
        }
    }
}
