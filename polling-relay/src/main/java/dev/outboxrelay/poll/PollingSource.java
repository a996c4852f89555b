package dev.outboxrelay.poll;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.core.route.EventRouter;

/**
 * The poll source: reads unsent outbox rows in {@code seq} order, publishes them and marks (or deletes) them
 * once Kafka acknowledged them. Instances on the same table elect one active poller with a PostgreSQL session
 * advisory lock; the others stand by and take over when it goes away. See {@code docs/poll-mode.md}.
 */
public interface PollingSource extends OutboxSource {

    /**
     * A poll source; nothing runs until {@link #start()}.
     *
     * @param settings    how to poll
     * @param connections opens database connections (one for polling, a short-lived one for purging)
     * @param router      turns rows into Kafka records
     * @param producer    producer settings for the publisher (and the admin client reading topic size limits)
     * @param listener    metrics hooks
     */
    static PollingSource create(PollSettings settings, ConnectionFactory connections, EventRouter router,
                                ProducerSettings producer, RelayListener listener) {
        return new JdbcPollingSource(settings, connections, router, producer, listener);
    }

    /** True while this instance is the active poller of its table (holds the advisory lock). */
    boolean isActive();
}
