package dev.outboxrelay.verify;

import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.core.db.ConnectionFactory;
import java.time.Duration;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Compares the outbox rows still in the table with what their topics hold: sent rows missing from the topic
 * (lost), ids delivered more than once (duplicates), per-key order, rows still unsent and dead letters.
 *
 * <p>The expected per-key order is {@code seq} order, the order both sources publish in. Rows the relay
 * deleted ({@code --on-publish delete}) or purged are not in the table and so are not checked.
 */
public interface DeliveryAudit {

    /**
     * Runs the audit.
     *
     * @param since    rows with {@code created_at} within this period are checked
     * @param progress receives a line now and then while large topics are read
     */
    AuditReport run(Duration since, Consumer<String> progress) throws Exception;

    /**
     * An audit reading rows over connections from {@code database} and records with a consumer configured by
     * {@code consumerConfig} (bootstrap servers and security settings; deserializers are set here).
     */
    static DeliveryAudit of(ConnectionFactory database, OutboxTable table, EventRouter router,
                            Map<String, Object> consumerConfig) {
        return new JdbcKafkaDeliveryAudit(database, table, router, consumerConfig);
    }
}
