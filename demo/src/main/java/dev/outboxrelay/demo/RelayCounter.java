package dev.outboxrelay.demo;

import dev.outboxrelay.core.RelayListener;
import java.time.Instant;
import java.util.concurrent.atomic.LongAdder;

/** Counts what the relay reports as acknowledged by Kafka: the "relayed" column of the progress line. */
final class RelayCounter implements RelayListener {

    private final LongAdder published = new LongAdder();

    @Override
    public void published(String topic, Instant createdAt) {
        published.increment();
    }

    long count() {
        return published.sum();
    }
}
