package dev.outboxrelay.poll;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import dev.outboxrelay.core.delivery.KeyParking;
import dev.outboxrelay.core.delivery.KeyParking.Reason;
import dev.outboxrelay.core.delivery.TopicLimits;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.route.EventRouter;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.junit.jupiter.api.Test;

/** The poll source's send and settle decisions against a fake publisher: no PostgreSQL, no Kafka. */
class BatchPublisherTest {

    private static final int MAX_ATTEMPTS = 3;

    private final KeyParking parking = KeyParking.create();
    private final FakePublisher kafka = new FakePublisher();
    private long seq;

    private BatchPublisher publisher(String deadLetterTopic, TopicLimits limits) {
        BatchPublisher p = new BatchPublisher(EventRouter.topicTemplate("t.${aggregateType}"), parking,
                RelayListener.none(), deadLetterTopic, MAX_ATTEMPTS);
        p.use(kafka, limits);
        return p;
    }

    @Test
    void aRowsFaultIsChargedAndItsKeyIsLeftOutOfTheFetchUntilItsRetry() throws Exception {
        kafka.answer = r -> r.topic().equals("t.Big") ? CompletableFuture.failedFuture(new RecordTooLargeException("big"))
                : acked();
        BatchPublisher p = publisher(null, TopicLimits.unknown());
        OutboxRow big = row("Big", "k", "{}", null, 0);
        OutboxRow other = row("Order", "o", "{}", null, 0);
        Batch batch = p.send(List.of(big, other), Set.of());
        BatchPublisher.Outcome outcome = p.settle(batch);
        assertThat(outcome.acknowledged()).containsExactly(other.id());
        assertThat(outcome.failures()).extracting(Failure::id).containsExactly(big.id());
        assertThat(parking.reasonOf("k")).isEqualTo(Reason.ROW_RETRY);
        assertThat(parking.isParked("o")).isFalse();
    }

    @Test
    void aMalformedRowUsesTheAttemptsItHasLeftAtOnceAndGoesToTheDeadLetterTopicOnce() throws Exception {
        BatchPublisher p = publisher("dead", TopicLimits.unknown());
        OutboxRow poison = row("Order", "p", "{}", "[\"not an object\"]", 1);
        BatchPublisher.Outcome outcome = p.settle(p.send(List.of(poison), Set.of()));
        assertThat(outcome.failures()).hasSize(MAX_ATTEMPTS - 1).allSatisfy(f -> {
            assertThat(f.id()).isEqualTo(poison.id());
            assertThat(f.reason()).contains("must be a JSON object");
        });
        assertThat(outcome.dying()).containsExactly(poison);
        assertThat(parking.isParked("p")).as("a dead letter holds its key through the fetch, not parking").isFalse();

        List<Failure> recorded = p.sendToDeadLetterTopic(outcome);
        assertThat(recorded).hasSize(MAX_ATTEMPTS - 1);
        assertThat(kafka.sent).extracting(ProducerRecord::topic).containsExactly("dead");
    }

    @Test
    void aTopicThatCannotBeWrittenParksItsKeysWithoutAnAttempt() throws Exception {
        kafka.answer = r -> r.topic().equals("t.Secret")
                ? CompletableFuture.failedFuture(new TopicAuthorizationException(Set.of("t.Secret"))) : acked();
        TopicLimits limits = TopicLimits.unknown();
        BatchPublisher p = publisher(null, limits);
        Batch batch = p.send(List.of(row("Secret", "s", "{}", null, 0), row("Order", "o", "{}", null, 0)), Set.of());
        BatchPublisher.Outcome outcome = p.settle(batch);
        assertThat(outcome.failures()).isEmpty();
        assertThat(outcome.outage()).as("not an outage of the whole broker").isNull();
        assertThat(parking.reasonOf("s")).isEqualTo(Reason.TOPIC);
        assertThat(limits.maxMessageBytes("t.Secret")).isEqualTo(TopicLimits.UNUSABLE);

        kafka.sent.clear();
        Batch next = p.send(List.of(row("Secret", "s2", "{}", null, 0)), Set.of());
        assertThat(kafka.sent).as("a topic known to be unusable is not sent to").isEmpty();
        assertThat(next.held).isEqualTo(1);
        assertThat(parking.reasonOf("s2")).isEqualTo(Reason.TOPIC);
    }

    private OutboxRow row(String type, String key, String payload, String headers, int attempts) {
        return new OutboxRow(++seq, UUID.randomUUID(), type, key, "Happened", payload, headers, Instant.now(),
                attempts);
    }

    private static CompletableFuture<RecordMetadata> acked() {
        return CompletableFuture.completedFuture(new RecordMetadata(new TopicPartition("t", 0), 0, 0, 0, 0, 0));
    }

    private static final class FakePublisher implements EventPublisher {
        Function<ProducerRecord<byte[], byte[]>, CompletableFuture<RecordMetadata>> answer = r -> acked();
        final List<ProducerRecord<byte[], byte[]>> sent = new ArrayList<>();

        @Override
        public CompletableFuture<RecordMetadata> publish(ProducerRecord<byte[], byte[]> record) {
            sent.add(record);
            return answer.apply(record);
        }

        @Override
        public void flush() {
        }

        @Override
        public void close(Duration timeout) {
        }
    }
}
