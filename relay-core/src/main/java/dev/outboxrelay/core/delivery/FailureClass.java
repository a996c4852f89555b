package dev.outboxrelay.core.delivery;

/**
 * Whose fault a failed publish is, which decides what waits and whether the row is charged an attempt. Every
 * source and every runner of the pipeline sorts failures with {@link Failures#classify(Throwable)}, so a given
 * Kafka error means the same thing in poll and in CDC mode.
 */
public enum FailureClass {

    /**
     * The row's own fault: retrying the same record can never succeed whatever the cluster does (a topic name
     * its columns make illegal, a record too large, a malformed row). Counts an attempt against that row; the row
     * is dead-lettered after {@code --max-attempts}; with {@code --on-poison block} its key's later events wait.
     */
    ROW,

    /**
     * The topic's fault: the topic does not exist while the cluster does not create topics, or the relay may not
     * write to it. Counts no attempt; the events of that topic wait with their keys, and flow again by
     * themselves once the topic is usable. Other topics are not held.
     */
    TOPIC,

    /**
     * The broker failed the record without saying why ({@code UnknownServerException}): the record, or a passing
     * fault of the broker. Counts no attempt for {@link Failures#AMBIGUOUS_GRACE} after the row's first such
     * failure (its key is parked for a retry with backoff, like a row fault, and other keys flow); past that it
     * counts like {@link #ROW}, so a record the broker always refuses still ends as a dead letter.
     */
    AMBIGUOUS,

    /**
     * Broker-wide: the cluster is unreachable or unavailable, the relay's credentials or cluster authorization
     * fail, or the producer is fenced or closed. Counts no attempt; everything waits and is retried with backoff.
     */
    BROKER
}
