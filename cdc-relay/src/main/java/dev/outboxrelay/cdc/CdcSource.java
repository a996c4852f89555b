package dev.outboxrelay.cdc;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.delivery.TopicLimits;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.route.EventRouter;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.OptionalLong;

/**
 * The CDC source: streams inserts into the outbox table from PostgreSQL's WAL (logical replication, pgoutput)
 * through embedded Debezium, with the same output contract as the poll source. See docs/cdc-mode.md.
 */
public final class CdcSource {

    private CdcSource() {
    }

    /**
     * A CDC source; nothing happens until {@link OutboxSource#start()}, which creates the publication and slot
     * when missing and throws {@link CdcSetupException} when the role cannot. The source owns {@code publisher}
     * and closes it.
     *
     * @throws IllegalArgumentException when a Debezium passthrough property may not be overridden
     */
    public static OutboxSource create(CdcSettings settings, EventRouter router, EventPublisher publisher,
                                      RelayListener listener) {
        return create(settings, router, publisher, TopicLimits.unknown(), listener);
    }

    /**
     * The same, with what the relay knows of each topic: with {@link TopicLimits#kafka} a topic that does not
     * exist (and is not created on first use) parks its keys instead of blocking the producer, and a record
     * larger than its topic takes cannot be overtaken by later events of its key. The source closes
     * {@code topics}.
     */
    public static OutboxSource create(CdcSettings settings, EventRouter router, EventPublisher publisher,
                                      TopicLimits topics, RelayListener listener) {
        return new DebeziumCdcSource(settings, router, publisher, topics, listener);
    }

    /**
     * WAL held back by the slot, {@code pg_current_wal_lsn() - confirmed_flush_lsn} in bytes; empty when the slot
     * does not exist. (The daemon reads the slot through {@link CdcSourceFactory#inspector}.)
     */
    public static OptionalLong retainedWalBytes(Connection connection, String slotName) throws SQLException {
        return SlotManager.retainedWalBytes(connection, slotName);
    }
}
