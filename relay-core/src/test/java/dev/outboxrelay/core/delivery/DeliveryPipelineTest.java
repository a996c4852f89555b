package dev.outboxrelay.core.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.core.delivery.KeyParking.Reason;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.route.EventRouter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.KafkaStorageException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

/**
 * The delivery pipeline's send and settle halves against a fake publisher and a fake row store: no PostgreSQL, no
 * Kafka. What a consumer sees on a real broker is the contract suites' job (both sources); this pins the
 * decisions. {@link SettlingPipelineTest} covers the settling thread.
 */
class DeliveryPipelineTest {

    private final FakePublisher kafka = new FakePublisher();
    private final FakeRows rows = new FakeRows();
    private final KeyParking parking = KeyParking.create();
    private TopicLimits topics = TopicLimits.unknown();
    private final java.util.concurrent.atomic.AtomicLong clock = new java.util.concurrent.atomic.AtomicLong();

    /** The two halves as the settling pipeline drives them, without its thread. */
    private final class Halves {
        final Sender sender;
        final Settler settler;

        Halves(OnPoison onPoison, String deadLetterTopic) {
            DeliverySettings settings = new DeliverySettings(2, onPoison, Optional.ofNullable(deadLetterTopic), 100, 64L << 20,
                    "test-settle");
            sender = new Sender(EventRouter.topicTemplate("t.${aggregateType}"), kafka, topics, parking, onPoison);
            settler = new Settler(settings, kafka, topics, parking, rows, RelayListener.none(), clock::get);
        }

        SentBatch send(List<Item> items, boolean fromTable) {
            return sender.send(items, fromTable);
        }

        void settleAll(List<SentBatch> batches) throws InterruptedException {
            for (SentBatch b : batches) {
                b.awaitAnswers(System.nanoTime() + java.util.concurrent.TimeUnit.SECONDS.toNanos(10));
            }
            settler.settleAll(batches, sender);
        }
    }

    private Halves publisher(OnPoison onPoison) {
        return publisher(onPoison, null);
    }

    private Halves publisher(OnPoison onPoison, String deadLetterTopic) {
        return new Halves(onPoison, deadLetterTopic);
    }

    @Test
    void aRowIsMarkedOnlyAfterKafkaAcknowledgedIt() throws Exception {
        kafka.answer = r -> new CompletableFuture<>(); // answered later, by hand
        Halves p = publisher(OnPoison.BLOCK);
        Item a = item("Order", "k1");
        Item b = item("Order", "k2");
        SentBatch sent = p.send(List.of(a, b), false);
        assertThat(rows.acknowledged).isEmpty();
        assertThat(sent.answered()).isFalse();

        kafka.pending.forEach(f -> f.complete(metadata()));
        p.settleAll(List.of(sent));
        assertThat(rows.acknowledged).containsExactly(a.id(), b.id());
    }

    @Test
    void aRowsFaultChargesAnAttemptAndParksOnlyItsKey() throws Exception {
        kafka.answer = r -> key(r).equals("bad") ? failed(new InvalidRecordException("refused by validation"))
                : acked();
        Halves p = publisher(OnPoison.BLOCK);
        Item bad = item("Order", "bad");
        Item good = item("Order", "good");
        p.settleAll(List.of(p.send(List.of(bad, good), false)));

        assertThat(rows.acknowledged).containsExactly(good.id());
        assertThat(rows.attempts).containsEntry(bad.id(), 1);
        assertThat(parking.reasonOf("bad")).isEqualTo(Reason.ROW_RETRY);
        assertThat(parking.isParked("good")).isFalse();

        // The stream leaves the bad key's next event in the table and sends the others.
        kafka.sent.clear();
        SentBatch next = p.send(List.of(item("Order", "bad"), item("Order", "good")), false);
        assertThat(next.parked).isEqualTo(1);
        assertThat(kafka.sent).extracting(DeliveryPipelineTest::key).containsExactly("good");
    }

    @Test
    void aRecordTooLargeForKafkaFailsTheSameWayEveryTimeSoItUsesAllItsAttemptsAtOnce() throws Exception {
        kafka.answer = r -> key(r).equals("big") ? failed(new RecordTooLargeException("over the topic's limit"))
                : acked();
        Halves p = publisher(OnPoison.BLOCK);
        Item big = item("Order", "big");
        p.settleAll(List.of(p.send(List.of(big, item("Order", "small")), false)));
        assertThat(rows.attempts).containsEntry(big.id(), 2);
        assertThat(parking.reasonOf("big")).isEqualTo(Reason.DEAD_LETTER);
    }

    @Test
    void aRowCertainlyLargerThanMaxRequestSizeIsDeadLetteredBeforeItIsEncodedAndCopiedWithoutItsPayload()
            throws Exception {
        kafka.answer = r -> acked();
        kafka.maxRecordBytes = 1000;
        Halves p = publisher(OnPoison.BLOCK, "dead");
        Item huge = Item.of(new OutboxEvent(UUID.randomUUID(), "Order", "huge", "Happened",
                "\"" + "x".repeat(1200) + "\"", Map.of(), Instant.now()));
        Item fits = item("Order", "fits");
        p.settleAll(List.of(p.send(List.of(huge, fits), false)));
        assertThat(kafka.sent).as("only the copy of the huge row and the row that fits")
                .extracting(ProducerRecord::topic).containsExactlyInAnyOrder("dead", "t.Order");
        ProducerRecord<byte[], byte[]> copy = kafka.sent.stream().filter(r -> r.topic().equals("dead")).findFirst()
                .orElseThrow();
        assertThat(copy.value()).as("the copy would be refused as well").isNull();
        assertThat(id(copy)).isEqualTo(huge.id());
        assertThat(new String(copy.headers().lastHeader(DeadLetterTopic.HEADER_REASON).value(),
                StandardCharsets.UTF_8)).isEqualTo("the event is 1219 characters, more than the producer's"
                        + " max.request.size (1000 bytes): Kafka refuses it every time");
        assertThat(rows.attempts).containsEntry(huge.id(), 2);
        assertThat(rows.acknowledged).containsExactly(fits.id());
    }

    @Test
    void anUnexplainedBrokerRefusalIsRetriedWithoutAttemptsForAMinuteThenCharged() throws Exception {
        kafka.answer = r -> key(r).equals("odd")
                ? failed(new org.apache.kafka.common.errors.UnknownServerException("append failed")) : acked();
        Halves p = publisher(OnPoison.BLOCK);
        Item odd = item("Order", "odd");
        Item good = item("Order", "good");
        p.settleAll(List.of(p.send(List.of(odd, good), false)));
        assertThat(rows.acknowledged).containsExactly(good.id());
        assertThat(rows.attempts).as("no attempt within the grace").doesNotContainKey(odd.id());
        assertThat(parking.reasonOf("odd")).as("its key waits for a retry, others flow").isEqualTo(Reason.ROW_RETRY);

        for (int i = 0; i < 10; i++) { // ten round trips within the minute: still nothing charged
            clock.addAndGet(java.util.concurrent.TimeUnit.SECONDS.toNanos(5));
            p.settleAll(List.of(p.send(List.of(odd), true)));
        }
        assertThat(rows.attempts).doesNotContainKey(odd.id());

        clock.addAndGet(Failures.AMBIGUOUS_GRACE.toNanos());
        p.settleAll(List.of(p.send(List.of(odd), true)));
        assertThat(rows.attempts).as("past the grace it counts like the row's fault").containsEntry(odd.id(), 1);
    }

    @Test
    void laterEventsOfAKeyAcknowledgedAfterItFailedAreNotMarked() throws Exception {
        List<UUID> failing = new ArrayList<>();
        kafka.answer = r -> failing.contains(id(r)) ? failed(new RecordTooLargeException("big")) : acked();
        Halves p = publisher(OnPoison.BLOCK);
        Item first = item("Order", "k");
        Item second = item("Order", "k");
        failing.add(first.id());
        p.settleAll(List.of(p.send(List.of(first, second), false)));
        assertThat(rows.acknowledged).as("the second overtook the first: published again after it").isEmpty();
        assertThat(parking.isParked("k")).isTrue();
    }

    @Test
    void aSendInterruptedBeforeTheRecordReachedTheProducerHoldsBackTheRestOfItsKey() throws Exception {
        // Seen in a database failover IT: the engine thread was interrupted inside send() while stopping; the
        // records after it, of the same key, went to Kafka first.
        List<UUID> refused = new ArrayList<>();
        kafka.answer = r -> {
            if (!refused.contains(id(r))) {
                return acked();
            }
            Exception e = new org.apache.kafka.common.errors.InterruptException("stopping");
            Thread.interrupted(); // it interrupts the thread that makes it, as the producer's does; not this test's
            return CompletableFuture.failedFuture(e);
        };
        Halves p = publisher(OnPoison.BLOCK);
        Item first = item("Order", "k");
        Item second = item("Order", "k");
        Item other = item("Order", "o");
        refused.add(first.id());
        SentBatch sent = p.send(List.of(first, second, other), false);
        assertThat(kafka.sent).extracting(DeliveryPipelineTest::id).containsExactly(first.id(), other.id());
        assertThat(sent.parked).as("the rest of its key waits in the table").isEqualTo(1);
        assertThat(parking.reasonOf("k")).isEqualTo(Reason.AT_RISK);
        p.settleAll(List.of(sent));
        assertThat(rows.acknowledged).containsExactly(other.id());
        assertThat(rows.attempts).as("not the row's fault").isEmpty();
    }

    @Test
    void aTopicsFaultParksItsKeysWithoutAnAttemptAndTheTopicIsNotSentToMeanwhile() throws Exception {
        kafka.answer = r -> r.topic().equals("t.Secret")
                ? failed(new TopicAuthorizationException(Set.of("t.Secret"))) : acked();
        Halves p = publisher(OnPoison.BLOCK);
        Item denied = item("Secret", "s1");
        Item fine = item("Order", "o1");
        p.settleAll(List.of(p.send(List.of(denied, fine), false)));
        assertThat(rows.attempts).as("no attempt counted").isEmpty();
        assertThat(rows.acknowledged).containsExactly(fine.id());
        assertThat(parking.reasonOf("s1")).isEqualTo(Reason.TOPIC);

        kafka.sent.clear();
        SentBatch next = p.send(List.of(item("Secret", "s2"), item("Order", "o2")), false);
        assertThat(kafka.sent).extracting(ProducerRecord::topic).containsExactly("t.Order");
        assertThat(parking.reasonOf("s2")).as("another key of the held topic").isEqualTo(Reason.TOPIC);
        assertThat(next.parked).isEqualTo(1);
    }

    @Test
    void aBrokerWideFailureIsRetriedWithoutChargingAttempts() throws Exception {
        brokerWideFailureIsRetriedWithoutChargingAttempts(new NetworkException("broker gone"));
    }

    @Test
    void aBrokerWhoseDiskIsFullOrThatTimesOutOrLacksReplicasHoldsBackWithoutChargingAttempts() throws Exception {
        brokerWideFailureIsRetriedWithoutChargingAttempts(new KafkaStorageException("disk full"));
        brokerWideFailureIsRetriedWithoutChargingAttempts(new org.apache.kafka.common.errors.TimeoutException(
                "Expiring 1 record(s): 120000 ms has passed since batch creation"));
        brokerWideFailureIsRetriedWithoutChargingAttempts(new NotEnoughReplicasException("min.insync.replicas"));
    }

    private void brokerWideFailureIsRetriedWithoutChargingAttempts(Exception failure) throws Exception {
        rows.acknowledged.clear();
        int[] calls = {0};
        kafka.answer = r -> calls[0]++ == 0 ? failed(failure) : acked();
        Halves p = publisher(OnPoison.BLOCK);
        Item event = item("Order", "k");
        p.settleAll(List.of(p.send(List.of(event), false)));
        assertThat(calls[0]).isEqualTo(2);
        assertThat(rows.attempts).isEmpty();
        assertThat(rows.acknowledged).containsExactly(event.id());
        assertThat(parking.size()).isZero();
    }

    @Test
    void withBlockADeadLetterKeepsItsKeyParkedAndWithSkipItsLaterEventsFlow() throws Exception {
        kafka.answer = r -> acked();
        Halves block = publisher(OnPoison.BLOCK);
        Item poison = malformed("p", "headers must be a JSON object");
        Item after = item("Order", "p");
        block.settleAll(List.of(block.send(List.of(poison, after), false)));
        assertThat(rows.attempts).as("a malformed row uses its attempts at once").containsEntry(poison.id(), 2);
        assertThat(parking.reasonOf("p")).isEqualTo(Reason.DEAD_LETTER);
        assertThat(rows.acknowledged).doesNotContain(after.id());

        Halves skip = publisher(OnPoison.SKIP);
        Item poison2 = malformed("q", "bad headers");
        Item after2 = item("Order", "q");
        skip.settleAll(List.of(skip.send(List.of(poison2, after2), false)));
        assertThat(parking.isParked("q")).isFalse();
        assertThat(rows.acknowledged).contains(after2.id());
    }

    @Test
    void aRecordLargerThanItsTopicTakesTravelsAloneAndHoldsBackTheRestOfItsKey() throws Exception {
        topics = new TopicLimits() {
            @Override
            public int maxMessageBytes(String topic) {
                return 300;
            }

            @Override
            public void unusable(String topic, Throwable cause) {
            }

            @Override
            public void published(String topic) {
            }

            @Override
            public void close() {
            }
        };
        kafka.answer = r -> acked();
        Halves p = publisher(OnPoison.BLOCK);
        Item small = item("Order", "k");
        Item big = Item.of(new OutboxEvent(UUID.randomUUID(), "Order", "k", "Happened",
                "{\"blob\": \"" + "x".repeat(400) + "\"}", Map.of(), Instant.now()));
        Item later = item("Order", "k");
        SentBatch sent = p.send(List.of(small, big, later), false);
        assertThat(kafka.flushes).as("flushed before and after the big record").isEqualTo(2);
        assertThat(sent.parked).as("the rest of its key waits until it is answered").isEqualTo(1);
        p.settleAll(List.of(sent));
        assertThat(rows.acknowledged).containsExactly(small.id(), big.id());
        assertThat(parking.due()).as("answered: the drainer may publish the rest").extracting(KeyParking.Hold::key)
                .containsExactly("k");
    }

    @Test
    void aDyingRowsCopyGoesToTheDeadLetterTopicOnceBeforeItIsRecorded() throws Exception {
        kafka.answer = r -> acked();
        Halves p = publisher(OnPoison.BLOCK, "dead");
        Item poison = malformed("p", "headers must be a JSON object");
        p.settleAll(List.of(p.send(List.of(poison), false)));
        assertThat(kafka.sent).extracting(ProducerRecord::topic).containsExactly("dead");
        assertThat(id(kafka.sent.get(0))).isEqualTo(poison.id());
        assertThat(new String(kafka.sent.get(0).headers().lastHeader(DeadLetterTopic.HEADER_REASON).value(),
                StandardCharsets.UTF_8)).isEqualTo("headers must be a JSON object");
        assertThat(rows.attempts).containsEntry(poison.id(), 2);
        assertThat(parking.reasonOf("p")).isEqualTo(Reason.DEAD_LETTER);
    }

    @Test
    void aRowWhoseDeadLetterCopyKafkaCannotTakeIsNotChargedAndRetried() throws Exception {
        kafka.answer = r -> r.topic().equals("dead") ? failed(new NetworkException("broker gone")) : acked();
        Halves p = publisher(OnPoison.BLOCK, "dead");
        Item poison = malformed("p", "bad headers");
        p.settleAll(List.of(p.send(List.of(poison), false)));
        assertThat(rows.attempts).as("not dead-lettered without its copy").isEmpty();
        assertThat(parking.reasonOf("p")).isEqualTo(Reason.ROW_RETRY);
    }

    @Test
    void theDrainerSendsTheEventsOfAParkedKey() throws Exception {
        kafka.answer = r -> acked();
        parking.park("k", Reason.TOPIC, "topic t.Order");
        Halves p = publisher(OnPoison.BLOCK);
        Item event = item("Order", "k");
        assertThat(p.send(List.of(event), false).parked).as("the stream leaves it").isEqualTo(1);
        SentBatch drained = p.send(List.of(event), true);
        p.settleAll(List.of(drained));
        assertThat(rows.acknowledged).containsExactly(event.id());
    }

    @Test
    void aRowWhoseColumnsAreNotAnEventIsDeadLetteredWithTheReasonAndItsColumnsAsRead() throws Exception {
        Item row = Item.fromColumns(UUID.randomUUID(), "Order", "k", "Happened", "{}", "[1, 2]", Instant.now());
        assertThat(row.event()).isNull();
        assertThat(row.malformedReason()).contains("headers");
        assertThat(row.dying().payload()).asString(java.nio.charset.StandardCharsets.UTF_8).isEqualTo("{}");

        Halves p = publisher(OnPoison.SKIP, "dead");
        p.settleAll(List.of(p.send(List.of(row), false)));
        assertThat(rows.attempts).containsEntry(row.id(), 2);
        assertThat(kafka.sent).extracting(ProducerRecord::topic).containsExactly("dead");
        assertThat(parking.isParked("k")).as("skip: the key goes on").isFalse();
    }

    @Test
    void aParkedKeysNewRowsAreLeftInTheTableAndCountedSoItIsLookedAtAgain() {
        parking.park("k", Reason.ROW_RETRY, "event x");
        long before = holdOf("k").parkedEvents();
        Halves p = publisher(OnPoison.BLOCK);
        SentBatch sent = p.send(List.of(item("Order", "k"), item("Order", "k"), item("Order", "other")), false);
        assertThat(sent.parked).isEqualTo(2);
        assertThat(holdOf("k").parkedEvents()).isEqualTo(before + 2);
        assertThat(kafka.sent).extracting(DeliveryPipelineTest::key).containsExactly("other");
    }

    private KeyParking.Hold holdOf(String key) {
        parking.dueNow(key);
        return parking.due().stream().filter(h -> h.key().equals(key)).findFirst().orElseThrow();
    }

    private static Item item(String type, String key) {
        return Item.of(new OutboxEvent(UUID.randomUUID(), type, key, "Happened", "{}", Map.of(),
                Instant.now()));
    }

    private static Item malformed(String key, String reason) {
        return Item.malformed(new DeadLetterTopic.DyingEvent(UUID.randomUUID(), "Order", key, "Happened",
                "{}".getBytes(java.nio.charset.StandardCharsets.UTF_8)), reason);
    }

    private static String key(ProducerRecord<byte[], byte[]> r) {
        return new String(r.key(), StandardCharsets.UTF_8);
    }

    private static UUID id(ProducerRecord<byte[], byte[]> r) {
        byte[] id = r.headers().lastHeader(EventRouter.HEADER_ID).value();
        return UUID.fromString(new String(id, StandardCharsets.UTF_8));
    }

    private static RecordMetadata metadata() {
        return FakePublisher.metadata();
    }

    private static CompletableFuture<RecordMetadata> acked() {
        return FakePublisher.acked();
    }

    private static CompletableFuture<RecordMetadata> failed(Exception e) {
        // Answered asynchronously, as the producer's callback does.
        CompletableFuture<RecordMetadata> f = new CompletableFuture<>();
        CompletableFuture.delayedExecutor(5, java.util.concurrent.TimeUnit.MILLISECONDS)
                .execute(() -> f.completeExceptionally(e));
        return f;
    }
}
