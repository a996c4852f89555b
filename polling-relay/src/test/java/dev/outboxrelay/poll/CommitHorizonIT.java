package dev.outboxrelay.poll;

import dev.outboxrelay.core.delivery.OnPoison;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

/** The fetch floor on a real PostgreSQL, with real concurrent transactions, as the relay's role sees them. */
class CommitHorizonIT {

    static final String TABLE = "public.outbox";
    private static final String INSERT = "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload)"
            + " SELECT gen_random_uuid(), 'Order', gen_random_uuid()::text, 'Created', '{}' FROM generate_series(1, %d) g";

    TestDatabase database;
    OutboxQueries queries;
    Connection relay;
    PreparedStatement fetch;

    /** The migrated database the tests run on. */
    TestDatabase createDatabase() throws Exception {
        TestDatabase db = TestPostgres.shared().createDatabase("horizon");
        PollingRelays.migrate(db, TABLE);
        return db;
    }

    @BeforeEach
    void setUp() throws Exception {
        database = createDatabase();
        queries = new OutboxQueries(OutboxTable.parse(TABLE), OnPoison.BLOCK);
        relay = PollingRelays.connections(database).open();
        queries.prepareSession(relay, "horizon-test");
        fetch = queries.prepareFetch(relay);
    }

    @AfterEach
    void tearDown() throws Exception {
        fetch.close();
        relay.close();
        database.drop();
    }

    @Test
    void anOpenTransactionHoldsTheFloorBelowItsRowsUntilItCommits() throws Exception {
        CommitHorizon horizon = CommitHorizon.open(relay, queries, 0);
        try (Connection late = database.connect()) {
            late.setAutoCommit(false);
            execute(late, String.format(INSERT, 1));
            long lateSeq = queryLong(late, "SELECT max(seq) FROM outbox");
            database.execute(String.format(INSERT, 10));

            List<OutboxRow> rows = fetchAndRecord(horizon);
            assertThat(rows).hasSize(10).allMatch(r -> r.seq() > lateSeq);
            horizon.advance(relay);
            assertThat(horizon.floor()).as("the late transaction still holds its lock").isZero();

            late.commit();
            horizon.advance(relay);
            assertThat(horizon.floor()).as("the late row is the lowest unsent one").isEqualTo(lateSeq);
            assertThat(queries.fetch(fetch, new long[0], horizon.floor(), 100).get(0).seq()).isEqualTo(lateSeq);
        }
    }

    @Test
    void theFloorPassesSentRowsOnceTheirWritersEnded() throws Exception {
        CommitHorizon horizon = CommitHorizon.open(relay, queries, 0);
        database.execute(String.format(INSERT, 20));
        List<OutboxRow> rows = fetchAndRecord(horizon);
        database.execute("UPDATE outbox SET sent_at = now()");
        horizon.advance(relay);
        long last = rows.get(rows.size() - 1).seq();
        assertThat(horizon.floor()).isEqualTo(last + 1);

        database.execute(String.format(INSERT, 5));
        List<OutboxRow> next = fetchAndRecord(horizon);
        assertThat(next).hasSize(5).allMatch(r -> r.seq() > last);
        horizon.advance(relay);
        assertThat(horizon.floor()).as("unsent rows stay above the floor").isEqualTo(next.get(0).seq());
    }

    @Test
    void aLiveDeadLetterPinsTheFloorSoARetriedRowIsFetchedFirst() throws Exception {
        CommitHorizon horizon = CommitHorizon.open(relay, queries, 0);
        database.execute(String.format(INSERT, 5));
        long dead = database.queryLong("SELECT min(seq) + 1 FROM outbox");
        database.execute("UPDATE outbox SET dead_lettered_at = now(), attempts = 10 WHERE seq = " + dead);
        database.execute("UPDATE outbox SET sent_at = now() WHERE seq <> " + dead);
        database.execute(String.format(INSERT, 3));
        List<OutboxRow> rows = fetchAndRecord(horizon);
        assertThat(rows).hasSize(3).allMatch(r -> r.seq() > dead);
        horizon.advance(relay);
        assertThat(horizon.floor()).isEqualTo(dead);

        database.execute("UPDATE outbox SET dead_lettered_at = NULL, attempts = 0 WHERE seq = " + dead);
        assertThat(queries.fetch(fetch, new long[0], horizon.floor(), 100).get(0).seq()).isEqualTo(dead);
    }

    @Test
    void aSequenceCacheAboveOneTurnsTheFloorOff() throws Exception {
        database.execute("ALTER TABLE outbox ALTER COLUMN seq SET CACHE 20");
        CommitHorizon horizon = CommitHorizon.open(relay, queries, 0);
        database.execute(String.format(INSERT, 5));
        fetchAndRecord(horizon);
        database.execute("UPDATE outbox SET sent_at = now()");
        horizon.advance(relay);
        assertThat(horizon.floor()).isZero();
    }

    private List<OutboxRow> fetchAndRecord(CommitHorizon horizon) throws Exception {
        List<OutboxRow> rows = queries.fetch(fetch, new long[0], horizon.floor(), 1000);
        horizon.fetched(relay, rows);
        return rows;
    }

    static void execute(Connection c, String sql) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.execute();
        }
    }

    static long queryLong(Connection c, String sql) throws Exception {
        try (PreparedStatement ps = c.prepareStatement(sql); var rs = ps.executeQuery()) {
            rs.next();
            return rs.getLong(1);
        }
    }
}
