package dev.outboxrelay.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.testkit.PostgresDatabaseExtension;
import dev.outboxrelay.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** TTL purge: deletes expired entries in batches, keeps live ones. Time passing is simulated in SQL. */
class InboxPurgeIT {

    @RegisterExtension
    static PostgresDatabaseExtension db = new PostgresDatabaseExtension();

    private static DataSource dataSource;
    private static Inbox orders;
    private static Inbox audit;

    @BeforeAll
    static void migrate() throws SQLException {
        dataSource = InboxIT.dataSource(db.database());
        orders = Inbox.forTable("consumers.processed", "orders");
        audit = Inbox.forTable("consumers.processed", "audit");
        try (Connection c = dataSource.getConnection()) {
            orders.migrator().migrate(c);
        }
    }

    @BeforeEach
    void empty() {
        db.database().execute("TRUNCATE consumers.processed");
    }

    private static void processAll(Inbox inbox, String... ids) throws SQLException {
        for (String id : ids) {
            assertThat(inbox.process(dataSource, id, c -> null).ran()).isTrue();
        }
    }

    private static void expire(String... ids) {
        db.database().execute("UPDATE consumers.processed SET expires_at = now() - interval '1 second'"
                + " WHERE event_id IN ('" + String.join("','", ids) + "')");
    }

    private static String remaining() {
        return db.database().queryString("SELECT coalesce(string_agg(consumer || ':' || event_id, ','"
                + " ORDER BY consumer, event_id), '') FROM consumers.processed");
    }

    @Test
    void deletesExpiredEntriesOfEveryConsumerInBatchesAndKeepsLiveOnes() throws SQLException {
        processAll(orders, "e1", "e2", "e3", "e4", "live1");
        processAll(audit, "a1", "live2");
        expire("e1", "e2", "e3", "e4", "a1");

        // Batches of 2 over 5 expired rows: 2 + 2 + 1, the short batch ends the loop.
        assertThat(orders.purgeExpired(dataSource, 2)).isEqualTo(5);

        assertThat(remaining()).isEqualTo("audit:live2,orders:live1");
        assertThat(orders.purgeExpired(dataSource, 2)).isZero();
    }

    @Test
    void purgeOnTheCallersConnectionDeletesOneBatchInItsTransaction() throws SQLException {
        processAll(orders, "e1", "e2", "e3", "live");
        expire("e1", "e2", "e3");

        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            assertThat(orders.purgeExpired(c, 2)).isEqualTo(2);
            c.rollback();
            assertThat(remaining()).isEqualTo("orders:e1,orders:e2,orders:e3,orders:live");
            assertThat(orders.purgeExpired(c, 2)).isEqualTo(2);
            assertThat(orders.purgeExpired(c, 2)).isEqualTo(1);
            c.commit();
        }
        assertThat(remaining()).isEqualTo("orders:live");
    }

    @Test
    void aPurgedEventIsProcessedAgain() throws SQLException {
        // Why the TTL must outlast every redelivery window: after the purge, the inbox has forgotten the event.
        processAll(orders, "late");
        expire("late");
        assertThat(orders.purgeExpired(dataSource, 100)).isEqualTo(1);

        assertThat(orders.process(dataSource, "late", c -> null).ran()).isTrue();
    }

    @Test
    void expiryIsIndexedForThePurge() {
        TestDatabase database = db.database();
        assertThat(database.queryString("SELECT indexdef FROM pg_indexes WHERE schemaname = 'consumers'"
                + " AND indexname = 'processed_expires_at_idx'"))
                .isEqualTo("CREATE INDEX processed_expires_at_idx ON consumers.processed USING btree (expires_at)");
    }
}
