package dev.outboxrelay.core.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.core.event.MalformedEventException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.AuthenticationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.NetworkException;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;

class FailuresTest {

    @Test
    void errorsOfTheRecordItselfAreTheRowsFault() {
        assertThat(Failures.classify(new RecordTooLargeException("too large"))).isEqualTo(FailureClass.ROW);
        assertThat(Failures.classify(new InvalidTopicException("bad name"))).isEqualTo(FailureClass.ROW);
        assertThat(Failures.classify(new InvalidRecordException("bad record"))).isEqualTo(FailureClass.ROW);
        assertThat(Failures.classify(new SerializationException("no"))).isEqualTo(FailureClass.ROW);
        assertThat(Failures.classify(new org.apache.kafka.common.errors.UnknownServerException("?")))
                .isEqualTo(FailureClass.AMBIGUOUS);
        assertThat(Failures.classify(new MalformedEventException(java.util.UUID.randomUUID(), "headers must be a JSON object")))
                .isEqualTo(FailureClass.ROW);
    }

    @Test
    void aMissingOrForbiddenTopicIsTheTopicsFault() {
        assertThat(Failures.classify(new TopicAuthorizationException(java.util.Set.of("t"))))
                .isEqualTo(FailureClass.TOPIC);
        assertThat(Failures.classify(new UnknownTopicOrPartitionException("gone"))).isEqualTo(FailureClass.TOPIC);
    }

    @Test
    void aFatalProducerStateIsNamedByTheErrorItCarries() {
        Throwable fatal = new org.apache.kafka.common.KafkaException(
                "Cannot execute transactional method because we are in an error state",
                new org.apache.kafka.common.errors.ClusterAuthorizationException("Cluster authorization failed."));
        assertThat(Failures.typeName(new java.util.concurrent.ExecutionException(fatal)))
                .isEqualTo("ClusterAuthorizationException");
        assertThat(Failures.typeName(new org.apache.kafka.common.KafkaException("Producer is closed forcefully.")))
                .isEqualTo("KafkaException");
        assertThat(Failures.classify(fatal)).isEqualTo(FailureClass.BROKER);
    }

    @Test
    void outagesCredentialsAndABrokenProducerAreBrokerWide() {
        assertThat(Failures.classify(new TimeoutException("expired"))).isEqualTo(FailureClass.BROKER);
        assertThat(Failures.classify(new NetworkException("down"))).isEqualTo(FailureClass.BROKER);
        assertThat(Failures.classify(new NotEnoughReplicasException("isr"))).isEqualTo(FailureClass.BROKER);
        assertThat(Failures.classify(new ClusterAuthorizationException("no"))).isEqualTo(FailureClass.BROKER);
        assertThat(Failures.classify(new AuthenticationException("no"))).isEqualTo(FailureClass.BROKER);
        assertThat(Failures.classify(new ProducerFencedException("fenced"))).isEqualTo(FailureClass.BROKER);
        assertThat(Failures.classify(new IllegalStateException("Cannot perform operation after producer has been closed")))
                .isEqualTo(FailureClass.BROKER);
        // Unknown errors cost waiting, never an attempt.
        assertThat(Failures.classify(new KafkaException("something new"))).isEqualTo(FailureClass.BROKER);
    }

    @Test
    void wrappersOfFuturesAreLookedThrough() {
        Throwable wrapped = new CompletionException(new ExecutionException(new RecordTooLargeException("big")));
        assertThat(Failures.classify(wrapped)).isEqualTo(FailureClass.ROW);
        assertThat(Failures.unwrap(wrapped)).isInstanceOf(RecordTooLargeException.class);
    }

    @Test
    void theReasonNamesTheKafkaErrorAndAMalformedRowKeepsItsOwnWords() {
        assertThat(Failures.describe(new CompletionException(new RecordTooLargeException("over 1048576 bytes"))))
                .isEqualTo("Kafka rejected the record: RecordTooLargeException: over 1048576 bytes");
        assertThat(Failures.describe(new MalformedEventException(java.util.UUID.randomUUID(), "headers must be a JSON object")))
                .isEqualTo("headers must be a JSON object");
    }
}
