package dev.outboxrelay.cdc;

import dev.outboxrelay.core.delivery.DeliveryPipeline;
import dev.outboxrelay.core.event.OutboxEvents;
import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.schema.OutboxSql;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the rows that are unsent in the table when CDC starts: written while poll mode ran, while no slot
 * existed, or not marked because the relay died between Kafka's acknowledgement and the mark. Runs after the
 * slot exists, in one REPEATABLE READ snapshot, so every row is either in the snapshot or committed after the
 * slot's start and therefore streamed; nothing falls between. For one key, rescanned rows (committed before
 * the snapshot) are published before streamed ones (committed after it).
 */
final class Rescanner {

    private static final Logger LOG = LoggerFactory.getLogger(Rescanner.class);

    private final OutboxTable table;
    private final Database database;
    private final BooleanSupplier closing;
    /** Rows per submitted batch: the stream's max.batch.size, so one duplicate bound covers both. */
    private final int pageSize;
    /** Estimated bytes per page at most (one row always), so big rows cannot fill the heap. */
    private final long pageBytes;
    /** Ids remembered so the stream can skip what the rescan published; beyond this, duplicates are possible. */
    private final int maxRemembered;

    Rescanner(CdcSettings settings, Database database, BooleanSupplier closing) {
        this.table = settings.table();
        this.database = database;
        this.pageSize = EngineProperties.maxBatchSize(settings);
        this.pageBytes = EngineProperties.pageBytes(settings);
        this.maxRemembered = EngineProperties.rememberedIds(settings);
        this.closing = closing;
    }

    /**
     * Publishes every unsent, live row in {@code seq} order, page by page in one snapshot, and returns once all of
     * them are settled.
     *
     * @param published receives the ids handed to Kafka (up to the remembered bound); the stream skips them
     * @return how many rows were published or dead-lettered
     */
    long rescan(DeliveryPipeline publisher, Set<UUID> published) throws SQLException, InterruptedException {
        long total = 0;
        try (Connection c = database.open()) {
            c.setAutoCommit(false);
            try (Statement st = c.createStatement()) {
                st.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY");
            }
            try (PreparedStatement ps = c.prepareStatement(OutboxSql.forTable(table).unsentPageAfter())) {
                long after = Long.MIN_VALUE;
                while (true) {
                    if (closing.getAsBoolean()) {
                        throw new InterruptedException("relay is closing");
                    }
                    List<Item> page = new ArrayList<>();
                    ps.setLong(1, after);
                    ps.setInt(2, pageSize);
                    ps.setLong(3, pageBytes);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            page.add(item(rs, table));
                            after = rs.getLong(8);
                        }
                    }
                    if (page.isEmpty()) {
                        break;
                    }
                    total += flush(publisher, page, published);
                }
            }
            c.commit();
        }
        while (!publisher.drain(Duration.ofSeconds(10))) {
            LOG.info("Rescan of {} waits for Kafka to acknowledge {} batch(es)", table, publisher.unsettled());
        }
        if (total > 0) {
            LOG.info("Rescan of {} published {} unsent row(s) before streaming", table, total);
        } else {
            LOG.info("Rescan of {} found no unsent rows", table);
        }
        return total;
    }

    private long flush(DeliveryPipeline publisher, List<Item> page, Set<UUID> published)
            throws InterruptedException {
        if (page.isEmpty()) {
            return 0;
        }
        // Remembered before sending: the stream may see the row before its acknowledgement.
        for (Item item : page) {
            if (published.size() < maxRemembered) {
                published.add(item.id());
            }
        }
        publisher.submit(page, false, last -> { });
        return page.size();
    }

    /**
     * The row at {@code rs}, selected as {@link OutboxSql#EVENT_COLUMNS}, {@code seq} and the layout's extra
     * columns: its event, or why it is malformed.
     */
    static Item item(ResultSet rs, OutboxTable table) throws SQLException {
        return Item.fromColumns(rs.getObject(1, UUID.class), rs.getString(2), rs.getString(3), rs.getString(4),
                OutboxEvents.payload(rs, 5), rs.getString(6), rs.getTimestamp(7).toInstant(),
                OutboxEvents.columns(rs, 9, table.layout().extras()));
    }
}
