package dev.outboxrelay.poll;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.core.acknowledge.Acknowledger;
import dev.outboxrelay.core.acknowledge.Acknowledger.OnPublish;
import dev.outboxrelay.core.delivery.RowStore;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The relay's acknowledgement of a row its session cannot see yet, on a real PostgreSQL. A CDC relay can be there:
 * the WAL holds a transaction's commit a moment before other sessions see it committed, and under a busy CPU Kafka
 * acknowledges the record within that moment. Here an open transaction stands in for that moment: the mark finds
 * nothing, and the row is marked (or deleted) with the next acknowledgement once its transaction is visible,
 * instead of staying unsent for good.
 */
class RowsNotYetVisibleIT {

    @ParameterizedTest
    @EnumSource(OnPublish.class)
    void aRowAcknowledgedBeforeItsTransactionIsVisibleIsMarkedWithTheNextAcknowledgement(OnPublish onPublish)
            throws Exception {
        TestDatabase db = TestPostgres.shared().createDatabase("not_yet_visible");
        try (RowStore rows = RowStore.jdbc(Acknowledger.forTable(OutboxTable.parse("public.outbox"), onPublish),
                PollingRelays.connections(db)::open)) {
            PollingRelays.migrate(db, "public.outbox");
            UUID early = UUID.randomUUID();
            UUID visible = UUID.randomUUID();
            insert(db, visible);
            try (Connection writer = db.connect()) {
                writer.setAutoCommit(false);
                try (PreparedStatement ps = writer.prepareStatement(INSERT)) {
                    ps.setObject(1, early);
                    ps.executeUpdate();
                }
                rows.acknowledge(List.of(early, visible));
                assertThat(unsent(db, visible)).as("the visible row is acknowledged at once").isZero();
                writer.commit();
            }
            assertThat(unsent(db, early)).as("its transaction was not visible to the mark").isEqualTo(1);

            rows.acknowledge(List.of()); // e.g. a heartbeat's batch
            assertThat(unsent(db, early)).as("acknowledged once its transaction is visible").isZero();
        } finally {
            db.drop();
        }
    }

    private static final String INSERT = "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload)"
            + " VALUES (?, 'Order', 'k', 'Created', '{}')";

    private static void insert(TestDatabase db, UUID id) throws Exception {
        try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement(INSERT)) {
            ps.setObject(1, id);
            ps.executeUpdate();
        }
    }

    private static long unsent(TestDatabase db, UUID id) {
        return db.queryLong("SELECT count(*) FROM outbox WHERE id = '" + id + "' AND sent_at IS NULL");
    }
}
