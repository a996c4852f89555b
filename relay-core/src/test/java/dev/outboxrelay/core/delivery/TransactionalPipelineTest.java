package dev.outboxrelay.core.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.publish.FencedException;
import dev.outboxrelay.core.publish.StateTopic;
import dev.outboxrelay.core.route.EventRouter;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The pipeline under {@code --delivery exactly-once}, against a fake transactional producer that behaves like
 * Kafka's: a transaction with a failed record cannot commit; what a consumer sees is what committed.
 */
class TransactionalPipelineTest {

    private static final String STATE = "state";

    private final Transactions kafka = new Transactions();
    private final FakeRows rows = new FakeRows();
    private final KeyParking parking = KeyParking.create();
    private final OutageEvents listener = new OutageEvents();
    private final List<String> events = listener.events;
    private DeliveryPipeline pipeline;

    /** A transactional producer: records go into the open transaction; commit makes them visible, abort drops them. */
    private final class Transactions implements EventPublisher {
        volatile Function<ProducerRecord<byte[], byte[]>, CompletableFuture<RecordMetadata>> answer =
                r -> FakePublisher.acked();
        volatile RuntimeException failCommit;
        volatile java.util.concurrent.CountDownLatch commitBlocks;
        final java.util.concurrent.CountDownLatch commitEntered = new java.util.concurrent.CountDownLatch(1);
        volatile List<UUID> lastCommitted = List.of();
        final List<ProducerRecord<byte[], byte[]>> visible = new CopyOnWriteArrayList<>();
        final List<String> calls = new CopyOnWriteArrayList<>();
        private final List<ProducerRecord<byte[], byte[]>> open = new ArrayList<>();
        private final List<CompletableFuture<RecordMetadata>> answers = new ArrayList<>();
        private boolean inTransaction;

        @Override
        public synchronized CompletableFuture<RecordMetadata> publish(ProducerRecord<byte[], byte[]> record) {
            assertThat(inTransaction).as("sent inside a transaction").isTrue();
            CompletableFuture<RecordMetadata> f = record.topic().equals(STATE) ? FakePublisher.acked()
                    : answer.apply(record);
            open.add(record);
            answers.add(f);
            return f;
        }

        @Override
        public synchronized void initTransactions() {
            calls.add("init");
        }

        @Override
        public synchronized void beginTransaction() {
            assertThat(inTransaction).as("one transaction at a time").isFalse();
            inTransaction = true;
        }

        @Override
        public void commitTransaction() {
            java.util.concurrent.CountDownLatch block = commitBlocks;
            if (block != null) {
                commitEntered.countDown();
                try {
                    block.await(); // as Kafka's producer waits for the coordinator, until interrupted
                } catch (InterruptedException e) {
                    throw new org.apache.kafka.common.errors.InterruptException(e);
                }
            }
            commit();
        }

        private synchronized void commit() {
            RuntimeException e = failCommit;
            if (e != null) {
                failCommit = null;
                throw e;
            }
            if (answers.stream().anyMatch(CompletableFuture::isCompletedExceptionally)) {
                throw new KafkaException("transaction has a failed record: abort it");
            }
            calls.add("commit " + rows.acknowledged.size() + " marked");
            visible.addAll(open);
            ProducerRecord<byte[], byte[]> last = open.get(open.size() - 1);
            assertThat(last.topic()).as("the position ends the transaction").isEqualTo(STATE);
            lastCommitted = decode(last.value());
            end();
        }

        @Override
        public synchronized void abortTransaction() {
            calls.add("abort");
            end();
        }

        private void end() {
            open.clear();
            answers.clear();
            inTransaction = false;
        }

        @Override
        public Optional<StateTopic> stateTopic() {
            return Optional.of(state);
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

        List<String> visibleIds() {
            return visible.stream().filter(r -> !r.topic().equals(STATE))
                    .map(r -> new String(r.value(), StandardCharsets.UTF_8)).toList();
        }
    }

    private volatile List<UUID> storedPosition = List.of();

    private final StateTopic state = new StateTopic() {
        @Override
        public String transactionalId() {
            return "relay.public.outbox";
        }

        @Override
        public String topic() {
            return STATE;
        }

        @Override
        public ProducerRecord<byte[], byte[]> record(int partitions, Collection<UUID> ids) {
            String joined = String.join(",", ids.stream().map(UUID::toString).toList());
            return new ProducerRecord<>(STATE, 0, new byte[0], joined.getBytes(StandardCharsets.UTF_8));
        }

        @Override
        public Position read(Duration timeout) {
            return new Position(1, storedPosition);
        }
    };

    private static List<UUID> decode(byte[] value) {
        String s = new String(value, StandardCharsets.UTF_8);
        return s.isEmpty() ? List.of() : java.util.Arrays.stream(s.split(",")).map(UUID::fromString).toList();
    }

    private DeliveryPipeline start() {
        DeliverySettings settings = new DeliverySettings(3, OnPoison.BLOCK, Optional.empty(), 1000, 64L << 20,
                "test-transactions");
        // The value is the event id, so the test reads what a consumer saw.
        EventRouter router = event -> new ProducerRecord<>("t", event.aggregateId().getBytes(StandardCharsets.UTF_8),
                event.id().toString().getBytes(StandardCharsets.UTF_8));
        pipeline = DeliveryPipeline.start(settings, router, kafka, TopicLimits.unknown(), parking, rows,
                listener);
        return pipeline;
    }

    @AfterEach
    void close() {
        if (pipeline != null) {
            pipeline.close();
        }
    }

    @Test
    void aGroupIsOneTransactionEndingWithItsPositionAndItsRowsAreMarkedOnlyAfterTheCommit() throws Exception {
        DeliveryPipeline p = start();
        Item a = item("a");
        Item b = item("b");
        p.submit(List.of(a, b), false, last -> { });
        assertThat(p.drain(Duration.ofSeconds(10))).isTrue();

        assertThat(kafka.visibleIds()).containsExactly(a.id().toString(), b.id().toString());
        assertThat(kafka.lastCommitted).containsExactly(a.id(), b.id());
        assertThat(kafka.calls).containsExactly("init", "commit 0 marked");
        assertThat(rows.acknowledged).containsExactly(a.id(), b.id());
    }

    @Test
    void aRowThatFailsAbortsTheTransactionAndTheOtherKeysCommitWithoutItsKey() throws Exception {
        Item bad = item("bad");
        Item badLater = item("bad");
        Item good = item("good");
        kafka.answer = r -> new String(r.value(), StandardCharsets.UTF_8).equals(bad.id().toString())
                ? CompletableFuture.failedFuture(new RecordTooLargeException("too large for the topic"))
                : FakePublisher.acked();
        DeliveryPipeline p = start();
        p.submit(List.of(bad, good, badLater), false, last -> { });
        assertThat(p.drain(Duration.ofSeconds(10))).isTrue();

        assertThat(kafka.calls).containsExactly("init", "abort", "commit 0 marked");
        assertThat(kafka.visibleIds()).as("the aborted attempt never shows").containsExactly(good.id().toString());
        assertThat(rows.acknowledged).containsExactly(good.id());
        assertThat(rows.attempts.get(bad.id())).as("too large: every attempt at once").isEqualTo(3);
        assertThat(rows.attempts).doesNotContainKey(badLater.id());
        assertThat(parking.isParked("bad")).as("the rest of its key waits in the table").isTrue();
    }

    @Test
    void aBrokerWideFailureAbortsAndSendsEverythingAgainAfterABackoff() throws Exception {
        Item a = item("a");
        kafka.answer = r -> CompletableFuture.failedFuture(new NetworkException("broker gone"));
        DeliveryPipeline p = start();
        p.submit(List.of(a), false, last -> { });
        await().atMost(Duration.ofSeconds(10)).until(() -> events.contains("outage kafka"));
        kafka.answer = r -> FakePublisher.acked();
        assertThat(p.drain(Duration.ofSeconds(10))).isTrue();

        assertThat(kafka.visibleIds()).containsExactly(a.id().toString());
        assertThat(rows.acknowledged).containsExactly(a.id());
        assertThat(rows.attempts).as("no attempt charged for Kafka's outage").isEmpty();
        assertThat(events).containsExactly("outage kafka", "recovered");
    }

    @Test
    void startMarksWhatTheLastCommittedTransactionListedAndNeverSendsThoseRowsAgain() throws Exception {
        Item committed = item("a");
        Item fresh = item("a");
        storedPosition = List.of(committed.id());
        DeliveryPipeline p = start();
        p.submit(List.of(committed, fresh), false, last -> { });
        assertThat(p.drain(Duration.ofSeconds(10))).isTrue();

        assertThat(rows.acknowledged).containsExactly(committed.id(), fresh.id());
        assertThat(kafka.visibleIds()).containsExactly(fresh.id().toString());
    }

    @Test
    void aFencedProducerStopsPublishingWithoutMarkingAnything() throws Exception {
        kafka.failCommit = new ProducerFencedException("another producer with the same transactional.id");
        DeliveryPipeline p = start();
        List<String> settled = new CopyOnWriteArrayList<>();
        p.submit(List.of(item("a")), false, last -> settled.add("settled"));

        await().atMost(Duration.ofSeconds(10)).until(() -> !p.isRunning());
        assertThat(p.failure()).get().isInstanceOf(FencedException.class);
        assertThat(p.failure().get().getMessage()).isEqualTo("another instance of relay 'relay.public.outbox' took"
                + " over exactly-once publishing (producer fenced)");
        assertThat(rows.acknowledged).isEmpty();
        assertThat(settled).isEmpty();
        assertThat(kafka.visibleIds()).isEmpty();
    }

    @Test
    void closingWhileACommitWaitsForKafkaIsAStopNotAFailure() throws Exception {
        kafka.commitBlocks = new java.util.concurrent.CountDownLatch(1);
        DeliveryPipeline p = start();
        p.submit(List.of(item("a")), false, last -> { });
        await().atMost(Duration.ofSeconds(10)).until(() -> kafka.visible.isEmpty() && p.unsettled() == 1);
        assertThat(kafka.commitEntered.await(10, java.util.concurrent.TimeUnit.SECONDS))
                .as("the settling thread is in the commit").isTrue();
        p.close();
        assertThat(p.failure()).isEmpty();
        assertThat(rows.acknowledged).isEmpty();
    }

    @Test
    void nothingIsSentBeforeTheProducerIsReadyAndThePositionCaughtUp() throws Exception {
        DeliveryPipeline p = start();
        p.submit(List.of(item("a")), false, last -> { });
        assertThat(p.drain(Duration.ofSeconds(10))).isTrue();
        assertThat(kafka.calls.get(0)).isEqualTo("init");
    }

    private static Item item(String key) {
        UUID id = UUID.randomUUID();
        return Item.of(new OutboxEvent(id, "T", key, "Created", "{}", Map.of(), Instant.now()));
    }
}
