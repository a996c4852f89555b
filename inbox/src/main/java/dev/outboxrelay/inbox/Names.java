package dev.outboxrelay.inbox;

import java.time.Duration;

/** Validation of the values that become part of an inbox entry's key. */
final class Names {

    private Names() {
    }

    static String consumer(String consumer) {
        if (consumer.isBlank()) {
            throw new IllegalArgumentException("consumer name must not be blank");
        }
        if (consumer.length() > Inbox.MAX_CONSUMER_LENGTH) {
            throw new IllegalArgumentException("consumer name is " + consumer.length() + " characters long; at most "
                    + Inbox.MAX_CONSUMER_LENGTH + " are allowed");
        }
        return consumer;
    }

    static String eventId(String eventId) {
        if (eventId == null) {
            // Typically a record without the id header: it cannot be deduplicated, so refuse to process it.
            throw new IllegalArgumentException("event id is missing (null): without it the event cannot be"
                    + " deduplicated; was the record produced by outbox-relay (Kafka header 'id')?");
        }
        if (eventId.isBlank()) {
            throw new IllegalArgumentException("event id must not be blank");
        }
        if (eventId.length() > Inbox.MAX_EVENT_ID_LENGTH) {
            throw new IllegalArgumentException("event id is " + eventId.length() + " characters long; at most "
                    + Inbox.MAX_EVENT_ID_LENGTH + " are allowed");
        }
        return eventId;
    }

    static Duration ttl(Duration ttl) {
        if (ttl.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new IllegalArgumentException("inbox ttl must be at least 1 second, was " + ttl
                    + "; it must exceed the longest redelivery window");
        }
        return ttl;
    }

    static int batchSize(int batchSize) {
        if (batchSize < 1) {
            throw new IllegalArgumentException("purge batch size must be positive, was " + batchSize);
        }
        return batchSize;
    }
}
