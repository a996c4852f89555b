package dev.outboxrelay.core.publish;

import org.apache.kafka.common.KafkaException;

/**
 * A record refused at once because the producer was closed to keep per-key order ({@link EventPublisher#broken()})
 * and not rebuilt yet. Broker-wide: it charges no attempt, and the pipeline sends the record again, in order, once
 * the producer is rebuilt.
 */
public final class ClosedForOrderException extends KafkaException {

    private static final long serialVersionUID = 1L;

    /** @param cause the failure that closed the producer */
    public ClosedForOrderException(Throwable cause) {
        super("the producer was closed after a failed record, to keep per-key order; not sent", cause);
    }
}
