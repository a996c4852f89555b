package dev.outboxrelay.poll;

import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.InvalidTopicException;
import org.apache.kafka.common.errors.PolicyViolationException;
import org.apache.kafka.common.errors.RecordBatchTooLargeException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.UnknownServerException;

/**
 * Sorts publish failures into the row's fault (counted as an attempt, dead-lettered eventually) and outages
 * (Kafka unreachable, timeouts, authorization, a broken producer), which never cost a row an attempt: the
 * rows just wait, so an outage cannot dead-letter healthy events.
 */
final class Failures {

    private Failures() {
    }

    /** True when retrying the same record can never succeed, whatever the state of the cluster. */
    static boolean isRecordFault(Throwable error) {
        Throwable e = unwrap(error);
        return e instanceof RecordTooLargeException
                || e instanceof RecordBatchTooLargeException
                || e instanceof InvalidTopicException
                || e instanceof InvalidRecordException
                || e instanceof PolicyViolationException
                || e instanceof SerializationException
                || e instanceof UnknownServerException;
    }

    static Throwable unwrap(Throwable error) {
        Throwable e = error;
        while ((e instanceof CompletionException || e instanceof ExecutionException) && e.getCause() != null) {
            e = e.getCause();
        }
        return e;
    }

    /** The reason stored in {@code last_error}: the Kafka error, which never quotes the record. */
    static String describe(Throwable error) {
        Throwable e = unwrap(error);
        return "Kafka rejected the record: " + e.getClass().getSimpleName()
                + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }
}
