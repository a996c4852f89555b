package dev.outboxrelay.core.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.route.EventRouter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.errors.NetworkException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The settling thread of the delivery pipeline: order, acknowledgement before position, bounds, failure. */
class SettlingPipelineTest {

    private final FakePublisher kafka = new FakePublisher();
    private final FakeRows rows = new FakeRows();
    private final KeyParking parking = KeyParking.create();
    private final OutageEvents listener = new OutageEvents();
    private final List<String> events = listener.events;
    private DeliveryPipeline pipeline;

    private DeliveryPipeline start(int maxUnsettledEvents) {
        return start(maxUnsettledEvents, 64L << 20);
    }

    private DeliveryPipeline start(int maxUnsettledEvents, long maxUnsettledBytes) {
        DeliverySettings settings = new DeliverySettings(3, OnPoison.BLOCK, Optional.empty(), maxUnsettledEvents,
                maxUnsettledBytes, "test-settle");
        pipeline = DeliveryPipeline.start(settings, EventRouter.topicTemplate("t.${aggregateType}"), kafka,
                TopicLimits.unknown(), parking, rows, listener);
        return pipeline;
    }

    @AfterEach
    void close() {
        if (pipeline != null) {
            pipeline.close();
        }
    }

    @Test
    void callbacksRunInSubmissionOrderAndOnlyAfterTheirRowsWereAcknowledgedAndMarked() throws Exception {
        kafka.answer = r -> new CompletableFuture<>();
        DeliveryPipeline p = start(100);
        Item a = item("a");
        Item b = item("b");
        List<String> settled = new CopyOnWriteArrayList<>();
        p.submit(List.of(a), false, last -> settled.add("first, marked " + rows.acknowledged));
        p.submit(List.of(b), false, last -> settled.add("second, marked " + rows.acknowledged));

        kafka.pending.get(1).complete(FakePublisher.metadata()); // the later batch is answered first
        assertThat(p.drain(Duration.ofMillis(200))).isFalse();
        assertThat(settled).isEmpty();
        assertThat(rows.acknowledged).isEmpty();

        kafka.pending.get(0).complete(FakePublisher.metadata());
        assertThat(p.drain(Duration.ofSeconds(10))).isTrue();
        assertThat(settled).containsExactly("first, marked [" + a.id() + ", " + b.id() + "]",
                "second, marked [" + a.id() + ", " + b.id() + "]");
    }

    @Test
    void submitBlocksWhileTheUnsettledEventsFillThePipeline() throws Exception {
        kafka.answer = r -> new CompletableFuture<>();
        DeliveryPipeline p = start(2);
        p.submit(List.of(item("a"), item("b")), false, last -> { });
        CountDownLatch submitted = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                p.submit(List.of(item("c")), false, last -> { });
                submitted.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        assertThat(submitted.await(200, TimeUnit.MILLISECONDS)).as("full: the third event waits").isFalse();
        kafka.pending.forEach(f -> f.complete(FakePublisher.metadata()));
        assertThat(submitted.await(10, TimeUnit.SECONDS)).isTrue();
        t.join();
    }

    @Test
    void submitBlocksWhileTheUnsettledBytesFillThePipelineButAdmitsOneOversizedBatchAlone() throws Exception {
        kafka.answer = r -> new CompletableFuture<>();
        DeliveryPipeline p = start(1000, 10_000);
        Item big = item("a", "x".repeat(50_000));
        assertThat(big.bytes()).isGreaterThan(50_000);
        p.submit(List.of(big), false, last -> { }); // larger than the budget, admitted: nothing else in flight
        CountDownLatch submitted = new CountDownLatch(1);
        Thread t = new Thread(() -> {
            try {
                p.submit(List.of(item("b")), false, last -> { });
                submitted.countDown();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        t.start();
        assertThat(submitted.await(200, TimeUnit.MILLISECONDS)).as("over budget: a small row waits too").isFalse();
        kafka.pending.get(0).complete(FakePublisher.metadata());
        assertThat(submitted.await(10, TimeUnit.SECONDS)).isTrue();
        t.join();
        p.submit(List.of(item("c"), item("d")), false, last -> { });
        assertThat(kafka.pending).as("small rows share the budget").hasSize(4);
    }

    @Test
    void aBrokerWideFailureIsAnOutageUntilKafkaTakesTheRecordsAgainAndChargesNothing() throws Exception {
        AtomicBoolean down = new AtomicBoolean(true);
        kafka.answer = r -> down.get() ? CompletableFuture.failedFuture(new NetworkException("broker gone"))
                : FakePublisher.acked();
        DeliveryPipeline p = start(100);
        Item a = item("a");
        p.submit(List.of(a), false, last -> { });
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(p::inOutage);
        assertThat(p.drain(Duration.ofMillis(300))).as("held until Kafka is back").isFalse();
        down.set(false);
        assertThat(p.drain(Duration.ofSeconds(20))).isTrue();
        assertThat(p.inOutage()).isFalse();
        assertThat(rows.acknowledged).containsExactly(a.id());
        assertThat(rows.attempts).isEmpty();
        assertThat(events).containsExactly("outage kafka", "recovered");
    }

    @Test
    void aBugWhileSettlingStopsThePipelineInsteadOfMovingPositionsPastUnsettledRows() throws Exception {
        rows.failNext = new IllegalStateException("a bug");
        DeliveryPipeline p = start(100);
        AtomicBoolean moved = new AtomicBoolean();
        p.submit(List.of(item("a")), false, last -> moved.set(true));
        await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(10)).until(() -> !p.isRunning());
        assertThat(moved).isFalse();
        assertThatThrownBy(() -> p.submit(List.of(item("b")), false, last -> { }))
                .isInstanceOf(InterruptedException.class).hasMessage("relay is closing");
    }

    @Test
    void closeAbandonsUnsettledBatchesAndIsIdempotent() throws Exception {
        kafka.answer = r -> new CompletableFuture<>();
        DeliveryPipeline p = start(100);
        AtomicBoolean moved = new AtomicBoolean();
        p.submit(List.of(item("a")), false, last -> moved.set(true));
        p.close();
        p.close();
        kafka.pending.forEach(f -> f.complete(FakePublisher.metadata()));
        assertThat(p.isRunning()).isFalse();
        assertThat(moved).isFalse();
        assertThat(rows.acknowledged).isEmpty();
    }

    private static Item item(String key) {
        return item(key, "{}");
    }

    private static Item item(String key, String payload) {
        return Item.of(new OutboxEvent(UUID.randomUUID(), "Order", key, "Happened", payload, Map.of(),
                Instant.now()));
    }
}
