package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.event.MalformedEventException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The one place that decides whose fault a publish failure is, on the exception's type only (never its text).
 * Anything not known to be the row's or the topic's fault is treated as broker-wide: that costs waiting, never
 * an attempt, so an unknown error can delay events but cannot dead-letter healthy ones.
 */
public final class Failures {

    /** How long an {@link FailureClass#AMBIGUOUS} failure of one row is retried before it counts attempts. */
    public static final java.time.Duration AMBIGUOUS_GRACE = java.time.Duration.ofSeconds(60);

    private Failures() {
    }

    /** The class of {@code error}, which may be wrapped in {@link CompletionException} or {@link ExecutionException}. */
    public static FailureClass classify(Throwable error) {
        Throwable e = unwrap(error);
        if (e instanceof MalformedEventException
                || e instanceof RecordTooLargeException
                || e instanceof RecordBatchTooLargeException
                || e instanceof InvalidTopicException
                || e instanceof InvalidRecordException
                || e instanceof PolicyViolationException
                || e instanceof SerializationException) {
            return FailureClass.ROW;
        }
        if (e instanceof UnknownServerException) {
            // The broker's answer for a record it failed to append for a reason it did not name: a plugin refusing
            // the record, or a transient fault that a retry gets past.
            return FailureClass.AMBIGUOUS;
        }
        if (e instanceof TopicAuthorizationException || e instanceof UnknownTopicOrPartitionException) {
            return FailureClass.TOPIC;
        }
        return FailureClass.BROKER;
    }

    /**
     * Whether {@code error} (a {@link FailureClass#ROW} failure) repeats on every attempt for the same record: a
     * record too large for the producer or the topic. Such a row is charged all its attempts at once.
     */
    public static boolean failsEveryTime(Throwable error) {
        Throwable e = unwrap(error);
        return e instanceof RecordTooLargeException || e instanceof RecordBatchTooLargeException;
    }

    /** The cause behind the wrappers that futures add. */
    public static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /**
     * The type of the failure behind {@code error}, for logs and readiness: a plain {@code KafkaException} that only
     * carries another (a producer in a fatal state says so around its first error) names what it carries.
     */
    public static String typeName(Throwable error) {
        Throwable e = unwrap(error);
        while (e.getClass() == org.apache.kafka.common.KafkaException.class && e.getCause() != null) {
            e = e.getCause();
        }
        return e.getClass().getSimpleName();
    }

    /**
     * The reason stored in {@code last_error} for a record Kafka refused: the error's type and message, which
     * never quote the record. A malformed row's reason is its own message.
     */
    public static String describe(Throwable error) {
        Throwable e = unwrap(error);
        if (e instanceof MalformedEventException) {
            return e.getMessage();
        }
        return "Kafka rejected the record: " + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }
}
