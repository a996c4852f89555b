package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.Heartbeat;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.core.delivery.KeyParking.Reason;
import dev.outboxrelay.core.publish.EventPublisher;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends again, in submission order, what failed broker-wide (at-least-once pipeline; docs/poll-mode.md, "Per-key
 * order across any outage"). The settling thread runs it with new sends held out, so that nothing submitted later
 * can reach Kafka between a failed record and the records of its key behind it:
 * <ol>
 *   <li>every batch still queued was answered (a {@link EventPublisher#broken()} producer failed all it held);</li>
 *   <li>after a backoff, a broken producer is rebuilt;</li>
 *   <li>batch by batch, record by record, what failed broker-wide is handed to the producer again. A key whose record
 *       failed through its own or its topic's fault stops there: its later records stay unsent in the table, the key
 *       parked, and follow that record once it is settled, as after any such failure.</li>
 * </ol>
 * Duplicates are possible (a record the broker took without answering in time is sent again); a first delivery out
 * of order is not: each partition held a prefix of what the old producer was given, and the rest follows in order.
 */
final class InOrderResend {

    private static final Logger LOG = LoggerFactory.getLogger(InOrderResend.class);
    private static final Duration MIN_BACKOFF = Duration.ofMillis(200);
    private static final Duration MAX_BACKOFF = Duration.ofSeconds(10);
    private static final long ANSWER_WAIT_NANOS = Duration.ofSeconds(1).toNanos();

    private final Sender sender;
    private final EventPublisher publisher;
    private final KeyParking parking;
    private final Settler settler;
    private final RelayListener listener;
    private final Backoff backoff = Backoff.exponential(MIN_BACKOFF, MAX_BACKOFF);

    InOrderResend(Sender sender, EventPublisher publisher, KeyParking parking, Settler settler,
                  RelayListener listener) {
        this.sender = sender;
        this.publisher = publisher;
        this.parking = parking;
        this.settler = settler;
        this.listener = listener;
    }

    /** Whether the batches about to be settled, or the producer, need a resend first. */
    boolean needed(List<SentBatch> group) {
        if (publisher.broken()) {
            return true;
        }
        for (SentBatch s : group) {
            if (!s.allAcknowledged() && s.failedBrokerWide()) {
                return true;
            }
        }
        return false;
    }

    /** A group settled without a resend: the next failure starts from the shortest backoff again. */
    void settled() {
        backoff.reset();
    }

    /**
     * Resends what failed broker-wide in {@code queued} (every unsettled batch, in submission order); the caller holds
     * new sends out meanwhile.
     */
    void run(List<SentBatch> queued) throws InterruptedException {
        for (SentBatch s : queued) {
            while (!s.awaitAnswers(System.nanoTime() + ANSWER_WAIT_NANOS)) {
                Heartbeat.beat(); // a closed producer answers everything at once; a slow one within its timeout
            }
        }
        Throwable cause = publisher.brokenBy();
        int failed = 0;
        for (SentBatch s : queued) {
            for (CompletableFuture<RecordMetadata> f : s.futures) {
                failed += f.isCompletedExceptionally() ? 1 : 0;
            }
        }
        if (cause == null || Failures.classify(cause) == FailureClass.BROKER) {
            // Not when a row's or a topic's failure closed the producer: the rest of Kafka is fine, and the settler
            // says what became of that row or topic.
            Throwable brokerWide = cause != null ? cause : firstBrokerWideFailure(queued);
            if (brokerWide != null) {
                settler.outage(brokerWide, failed);
            }
        }
        long delay = backoff.nextDelayMillis();
        LOG.debug("Sending {} unacknowledged event(s) again in {} ms, in order", failed, delay);
        Thread.sleep(delay);
        if (publisher.broken()) {
            Throwable closedBy = publisher.brokenBy();
            publisher.rebuild();
            LOG.info("Kafka producer rebuilt after {}", describe(closedBy));
            listener.producerRebuilt(closedBy);
        }
        Set<String> stopped = new HashSet<>();
        Set<String> resentKeys = new HashSet<>();
        int resent = 0;
        for (SentBatch s : queued) {
            for (int i = 0; i < s.items.size(); i++) {
                CompletableFuture<RecordMetadata> f = s.futures.get(i);
                if (!f.isCompletedExceptionally()) {
                    continue;
                }
                Item item = s.items.get(i);
                String key = item.key();
                if (Failures.classify(f.handle((m, e) -> e).join()) != FailureClass.BROKER) {
                    stop(stopped, key);
                    continue;
                }
                if (key != null && stopped.contains(key)) {
                    // The settler re-parks the key for the failure in front (retry, topic, dead letter) before it
                    // gets to this batch; until then the key waits too.
                    parking.park(key, Reason.AT_RISK, "behind a failed event of its key");
                    s.leaveInTable(i--);
                    continue;
                }
                CompletableFuture<RecordMetadata> again = sender.resend(item, s.atRisk.get(i));
                s.futures.set(i, again);
                if (again.isCompletedExceptionally() && !publisher.broken()) {
                    // Refused at send for its own or its topic's fault: the producer still takes the key's next
                    // record, which would land first.
                    stop(stopped, key);
                }
                resent++;
                if (key != null) {
                    resentKeys.add(key);
                }
            }
        }
        listener.resentForOrder(resentKeys.size(), resent);
    }

    /**
     * Nothing more of {@code key} is sent in this run, and the key is parked at once: once this run ends the producer
     * works again, and a new event of the key submitted before the settler gets to the failed record (to park the key
     * for that failure) would otherwise reach Kafka ahead of it, a first delivery out of order.
     */
    private void stop(Set<String> stopped, String key) {
        if (key != null && stopped.add(key)) {
            parking.park(key, Reason.AT_RISK, "behind a failed event of its key");
        }
    }

    private static Throwable firstBrokerWideFailure(List<SentBatch> queued) {
        for (SentBatch s : queued) {
            for (CompletableFuture<RecordMetadata> f : s.futures) {
                if (f.isCompletedExceptionally()) {
                    Throwable e = Failures.unwrap(f.handle((m, x) -> x).join());
                    if (Failures.classify(e) == FailureClass.BROKER) {
                        return e;
                    }
                }
            }
        }
        return null;
    }

    private static String describe(Throwable e) {
        return e == null ? "a failure" : Failures.typeName(e);
    }
}
