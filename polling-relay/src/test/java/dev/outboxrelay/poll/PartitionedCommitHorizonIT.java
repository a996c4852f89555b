package dev.outboxrelay.poll;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.contract.PartitionedOutbox;
import java.sql.Connection;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The fetch floor on an outbox table partitioned by hash of id, on PostgreSQL 17: every test of
 * {@link CommitHorizonIT}, and one more. Since 17 an INSERT straight into a partition draws its seq from the
 * parent's identity sequence while it locks only the partition for writing (the parent just for reading), so
 * the floor must watch the partitions' locks too.
 */
class PartitionedCommitHorizonIT extends CommitHorizonIT {

    @Override
    TestDatabase createDatabase() throws Exception {
        TestDatabase db = TestPostgres.sharedOfMajor(17).createDatabase("horizonpart");
        PollingRelays.migrate(db, TABLE);
        PartitionedOutbox.convert(db, TABLE, 2);
        return db;
    }

    @Test
    void anOpenTransactionInsertingIntoAPartitionHoldsTheFloorUntilItCommits() throws Exception {
        CommitHorizon horizon = CommitHorizon.open(relay, queries, 0);
        try (Connection late = database.connect()) {
            late.setAutoCommit(false);
            // Straight into partition 0: an id of its hash bucket, and the seq the partition inherits.
            execute(late, "INSERT INTO outbox_p0 (id, aggregate_type, aggregate_id, event_type, payload)"
                    + " SELECT u, 'Order', 'late', 'Created', '{}' FROM (SELECT gen_random_uuid() u"
                    + " FROM generate_series(1, 64)) g WHERE satisfies_hash_partition('public.outbox'::regclass,"
                    + " 2, 0, u) LIMIT 1");
            long lateSeq = queryLong(late, "SELECT max(seq) FROM outbox");
            database.execute("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload)"
                    + " SELECT gen_random_uuid(), 'Order', 'k' || g, 'Created', '{}' FROM generate_series(1, 10) g");

            List<OutboxRow> rows = queries.fetch(fetch, new long[0], horizon.floor(), 1000);
            horizon.fetched(relay, rows);
            assertThat(rows).hasSize(10).allMatch(r -> r.seq() > lateSeq);
            database.execute("UPDATE outbox SET sent_at = now() WHERE aggregate_id <> 'late'");
            horizon.advance(relay);
            assertThat(horizon.floor()).as("the transaction writing the partition is still open").isZero();

            late.commit();
            horizon.advance(relay);
            assertThat(horizon.floor()).as("the late row is the lowest unsent one").isEqualTo(lateSeq);
            assertThat(queries.fetch(fetch, new long[0], horizon.floor(), 100)).extracting(OutboxRow::seq)
                    .containsExactly(lateSeq);
        }
    }
}
