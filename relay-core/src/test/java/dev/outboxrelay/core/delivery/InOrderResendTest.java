package dev.outboxrelay.core.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.publish.ClosedForOrderException;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.route.EventRouter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Per-key order after a failed record (at least once): what the producer held is sent again in order, before
 * anything submitted later, and a key whose record failed through its own fault stops there.
 */
class InOrderResendTest {

    /**
     * A producer as Kafka's behaves once the relay closes it on a failure: records are held until told; failing one
     * fails every other held one (the forced close) and refuses sends until {@link #rebuild()}; the new producer
     * acknowledges at once.
     */
    private static final class ClosingKafka implements EventPublisher {
        final List<String> sent = new CopyOnWriteArrayList<>();
        final List<CompletableFuture<RecordMetadata>> held = new CopyOnWriteArrayList<>();
        final List<String> heldIds = new CopyOnWriteArrayList<>();
        final AtomicInteger rebuilds = new AtomicInteger();
        volatile Throwable brokenBy;
        volatile boolean hold = true;
        /** Whether the rebuilt producer holds records until told too, instead of acknowledging at once. */
        volatile boolean holdAfterRebuild;

        @Override
        public synchronized CompletableFuture<RecordMetadata> publish(ProducerRecord<byte[], byte[]> record) {
            if (brokenBy != null) {
                return CompletableFuture.failedFuture(new ClosedForOrderException(brokenBy));
            }
            String id = new String(record.headers().lastHeader("id").value(), StandardCharsets.UTF_8);
            sent.add(id);
            if (!hold) {
                return FakePublisher.acked();
            }
            CompletableFuture<RecordMetadata> f = new CompletableFuture<>();
            held.add(f);
            heldIds.add(id);
            return f;
        }

        synchronized void ack(String id) {
            held.get(heldIds.lastIndexOf(id)).complete(FakePublisher.metadata());
        }

        long timesSent(String id) {
            return sent.stream().filter(id::equals).count();
        }

        /** {@code id} fails with {@code error}; the producer is closed, failing all it still holds. */
        synchronized void fail(String id, Throwable error) {
            brokenBy = error;
            held.get(heldIds.lastIndexOf(id)).completeExceptionally(error);
            for (CompletableFuture<RecordMetadata> f : held) {
                f.completeExceptionally(new KafkaException("Producer is closed forcefully."));
            }
        }

        @Override
        public boolean broken() {
            return brokenBy != null;
        }

        @Override
        public Throwable brokenBy() {
            return brokenBy;
        }

        @Override
        public synchronized void rebuild() {
            if (brokenBy != null) {
                brokenBy = null;
                hold = holdAfterRebuild;
                rebuilds.incrementAndGet();
            }
        }

        @Override
        public void flush() {
        }

        @Override
        public int maxRecordBytes() {
            return 1 << 20;
        }

        @Override
        public void close(Duration timeout) {
        }
    }

    private final ClosingKafka kafka = new ClosingKafka();
    private final FakeRows rows = new FakeRows();
    private final KeyParking parking = KeyParking.create();
    private final List<String> resent = new CopyOnWriteArrayList<>();
    private final RelayListener listener = new RelayListener() {
        @Override
        public void resentForOrder(int keys, int events) {
            resent.add(keys + " key(s), " + events + " event(s)");
        }
    };
    private DeliveryPipeline pipeline;

    private DeliveryPipeline start() {
        DeliverySettings settings = new DeliverySettings(3, OnPoison.BLOCK, Optional.empty(), 1000, 64L << 20,
                "test-settle");
        pipeline = DeliveryPipeline.start(settings, EventRouter.topicTemplate("t"), kafka, TopicLimits.unknown(),
                parking, rows, listener);
        return pipeline;
    }

    @AfterEach
    void close() {
        if (pipeline != null) {
            pipeline.close();
        }
    }

    @Test
    void anExpiredRecordAndEverythingBehindItAreSentAgainInOrderBeforeAnythingSubmittedLater() throws Exception {
        DeliveryPipeline p = start();
        Item k1a = item("k1");
        Item k2a = item("k2");
        Item k1b = item("k1");
        p.submit(List.of(k1a, k2a), false, last -> { });
        p.submit(List.of(k1b), false, last -> { });
        kafka.ack(id(k2a));
        kafka.fail(id(k1a), new TimeoutException("Expiring 1 record(s): 120000 ms has passed since batch creation"));
        Item k1c = item("k1");
        p.submit(List.of(k1c), false, last -> { }); // refused by the closed producer, or held out until the resend

        assertThat(p.drain(Duration.ofSeconds(20))).isTrue();
        assertThat(kafka.rebuilds).hasValue(1);
        List<String> afterFailure = kafka.sent.subList(3, kafka.sent.size());
        assertThat(afterFailure).as("the new producer gets the key's unacknowledged records first, in order")
                .containsExactly(id(k1a), id(k1b), id(k1c));
        assertThat(rows.acknowledged).containsExactlyInAnyOrder(k1a.id(), k2a.id(), k1b.id(), k1c.id());
        assertThat(rows.attempts).as("an outage is not the rows' fault").isEmpty();
        assertThat(resent).first().isIn("1 key(s), 2 event(s)", "1 key(s), 3 event(s)");
        assertThat(parking.size()).isZero();
    }

    @Test
    void aKeyWhoseRecordFailedThroughItsOwnFaultStopsThereWhileOtherKeysAreSentAgain() throws Exception {
        DeliveryPipeline p = start();
        Item bad = item("k1");
        Item k2a = item("k2");
        Item behindBad = item("k1");
        Item k2b = item("k2");
        p.submit(List.of(bad, k2a), false, last -> { });
        p.submit(List.of(behindBad, k2b), false, last -> { });
        kafka.fail(id(bad), new InvalidRecordException("refused by the broker"));

        assertThat(p.drain(Duration.ofSeconds(20))).isTrue();
        assertThat(kafka.sent.subList(4, kafka.sent.size())).containsExactly(id(k2a), id(k2b));
        assertThat(rows.acknowledged).containsExactlyInAnyOrder(k2a.id(), k2b.id());
        assertThat(rows.attempts).containsOnlyKeys(bad.id());
        assertThat(parking.reasonOf("k1")).as("the rest of the key waits in the table for the failed row's retry")
                .isEqualTo(KeyParking.Reason.ROW_RETRY);
        assertThat(rows.held).as("and the table keeps that hold for a restart or a takeover")
                .containsOnlyKeys(bad.id());
        assertThat(rows.held.get(bad.id())).isPositive();
    }

    @Test
    void aKeyWhoseRecordFailedForItsTopicIsHeldFromTheResendOnNotOnlyOnceThatRecordIsSettled() throws Exception {
        kafka.holdAfterRebuild = true;
        DeliveryPipeline p = start();
        Item refused = item("k1");
        Item k2a = item("k2");
        p.submit(List.of(refused, k2a), false, last -> { });
        // The ACL on the topic was revoked: the producer is closed on the failure, k2a fails with it.
        kafka.fail(id(refused), new TopicAuthorizationException(Set.of("t")));
        // The resend rebuilt the producer and sent k2a again; the new producer holds it, so the settler waits for it
        // and has not got to the refused record yet.
        await().atMost(Duration.ofSeconds(20)).until(() -> kafka.timesSent(id(k2a)) == 2);
        Item k1b = item("k1");
        p.submit(List.of(k1b), false, last -> { }); // the new producer works: k1b must not reach Kafka before refused

        assertThat(kafka.sent).as("a new event of the key waits in the table behind the refused one")
                .doesNotContain(id(k1b));
        kafka.ack(id(k2a));
        assertThat(p.drain(Duration.ofSeconds(20))).isTrue();
        assertThat(kafka.sent).doesNotContain(id(k1b));
        assertThat(rows.acknowledged).containsExactly(k2a.id());
        assertThat(parking.reasonOf("k1")).as("then the key waits for its topic")
                .isEqualTo(KeyParking.Reason.TOPIC);
        assertThat(rows.attempts).as("a topic's fault is not the row's").isEmpty();
    }

    private static String id(Item item) {
        return item.id().toString();
    }

    private static Item item(String key) {
        return Item.of(new OutboxEvent(UUID.randomUUID(), "Order", key, "Happened", "{}", Map.of(), Instant.now()));
    }
}
