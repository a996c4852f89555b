package dev.outboxrelay.poll;

import dev.outboxrelay.core.delivery.OnPoison;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fetch's plan on a real PostgreSQL, with the statistics a drained outbox really has, on every supported
 * version (0 is the installed server).
 */
class OutboxQueriesIT {

    private static final String TABLE = "public.outbox";
    private static final String INSERT = "INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload)"
            + " SELECT gen_random_uuid(), 'Order', 'agg-' || (g %% 1000), 'Created',"
            + " jsonb_build_object('n', g, 'pad', repeat('x', 250)) FROM generate_series(1, %d) g";

    private TestDatabase database;

    private void createDatabase(int major) throws Exception {
        database = TestPostgres.sharedOfMajor(major).createDatabase("queries");
        PollingRelays.migrate(database, TABLE);
    }

    @AfterEach
    void tearDown() {
        if (database != null) {
            database.drop();
        }
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @ValueSource(ints = {0, 14, 16, 17, 18})
    void theFetchReadsTheUnsentIndexInOrderEvenWhenStatisticsSayTheTableIsEmpty(int major) throws Exception {
        createDatabase(major);
        // A backlog drained (delete mode) and ANALYZE ran: 0 rows in many pages. Then a new backlog arrives.
        database.execute(String.format(INSERT, 50_000));
        database.execute("DELETE FROM outbox");
        database.execute("ANALYZE outbox");
        database.execute(String.format(INSERT, 100_000));
        OutboxQueries queries = new OutboxQueries(OutboxTable.parse(TABLE), OnPoison.BLOCK);
        try (Connection c = database.connect()) {
            queries.prepareSession(c, "plan-test");
            // Two batches of 1,000 in flight, as in a pipelined drain.
            long first = database.queryLong("SELECT min(seq) FROM outbox");
            Long[] inFlight = new Long[2000];
            for (int i = 0; i < inFlight.length; i++) {
                inFlight[i] = first + i;
            }
            assertOrderedIndexScan(explain(c, queries.fetchSql(), inFlight));
            // And with fresh statistics of the backlog and three batches in flight: PostgreSQL 14 planned the
            // unhashed "<> ALL" exclusion list with parallel workers (57 ms per fetch instead of 6.5).
            database.execute("ANALYZE outbox");
            Long[] threeBatches = new Long[3000];
            for (int i = 0; i < threeBatches.length; i++) {
                threeBatches[i] = first + i;
            }
            assertOrderedIndexScan(explain(c, queries.fetchSql(), threeBatches));
            // On this shape the planner's costs for "index scan" and "bitmap scan + sort" differ by 0.01 (seen
            // both ways on PostgreSQL 15); the session setting is what keeps the relay on the index scan.
            try (PreparedStatement ps = c.prepareStatement("SELECT current_setting('enable_sort')");
                 ResultSet rs = ps.executeQuery()) {
                rs.next();
                assertThat(rs.getString(1)).isEqualTo("off");
            }
        }
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @ValueSource(ints = {0, 14, 16, 17, 18})
    void theFetchLeavesOutTheRowsOfBatchesInFlightAndStartsAtTheFloor(int major) throws Exception {
        createDatabase(major);
        database.execute(String.format(INSERT, 20));
        long first = database.queryLong("SELECT min(seq) FROM outbox");
        OutboxQueries queries = new OutboxQueries(OutboxTable.parse(TABLE), OnPoison.BLOCK);
        try (Connection c = database.connect()) {
            queries.prepareSession(c, "fetch-test");
            try (PreparedStatement fetch = queries.prepareFetch(c)) {
                List<OutboxRow> rows = queries.fetch(fetch, new long[] {first, first + 2}, first, 5);
                assertThat(rows).extracting(OutboxRow::seq)
                        .containsExactly(first + 1, first + 3, first + 4, first + 5, first + 6);
                assertThat(queries.fetch(fetch, new long[0], first + 18, 5)).extracting(OutboxRow::seq)
                        .containsExactly(first + 18, first + 19);
            }
        }
    }

    @ParameterizedTest(name = "PostgreSQL {0}")
    @ValueSource(ints = {0, 14})
    void theFetchStopsAtItsByteBudgetWithoutSkippingARowAndAlwaysReadsTheFirst(int major) throws Exception {
        createDatabase(major);
        // Compressible (stored compressed: measured as text) and incompressible (stored as is) payloads of ~100 KB.
        database.execute("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload) SELECT"
                + " gen_random_uuid(), 'Order',"
                + " 'k' || g, 'Big', CASE WHEN g % 2 = 0 THEN jsonb_build_object('data', repeat('x', 100000)) ELSE"
                + " jsonb_build_object('data', (SELECT string_agg(md5(random()::text || g || i), '') FROM"
                + " generate_series(1, 3125) i)) END FROM generate_series(1, 6) g");
        database.execute(String.format(INSERT, 3));
        long first = database.queryLong("SELECT min(seq) FROM outbox");
        assertThat(database.queryLong("SELECT count(*) FROM outbox WHERE pg_column_compression(payload) IS NOT NULL"))
                .as("some payloads are stored compressed").isBetween(1L, 5L);
        OutboxQueries queries = new OutboxQueries(OutboxTable.parse(TABLE), OnPoison.BLOCK);
        try (Connection c = database.connect()) {
            queries.prepareSession(c, "fetch-test");
            try (PreparedStatement fetch = queries.prepareFetch(c)) {
                assertThat(queries.fetch(fetch, new long[0], first, new String[0], 100, 250_000))
                        .as("~100 KB each: read while less than 250 KB came before").extracting(OutboxRow::seq)
                        .containsExactly(first, first + 1, first + 2);
                assertThat(queries.fetch(fetch, new long[0], first, new String[0], 100, 1))
                        .as("the first row however large").extracting(OutboxRow::seq).containsExactly(first);
                assertThat(queries.fetch(fetch, new long[0], first + 5, new String[0], 100, 100_000))
                        .as("a big row uses the budget up").extracting(OutboxRow::seq).containsExactly(first + 5);
                assertThat(queries.fetch(fetch, new long[0], first + 6, new String[0], 100, 1_000))
                        .as("small rows: ~550 bytes each").extracting(OutboxRow::seq)
                        .containsExactly(first + 6, first + 7);
            }
        }
    }

    private static void assertOrderedIndexScan(List<String> plan) {
        assertThat(plan).as("%s", plan).anyMatch(line -> line.contains("Index Scan using outbox_unsent_idx"));
        assertThat(plan).as("no sort of the whole backlog: %s", plan).noneMatch(line -> line.contains("Sort"));
        assertThat(plan).as("no parallel workers: %s", plan).noneMatch(line -> line.contains("Gather"));
    }

    private static List<String> explain(Connection c, String sql, Long[] excluded) throws Exception {
        try (PreparedStatement ps = c.prepareStatement("EXPLAIN " + sql)) {
            ps.setArray(1, c.createArrayOf("int8", excluded));
            ps.setLong(2, 0);
            ps.setArray(3, c.createArrayOf("text", new String[0]));
            ps.setInt(4, 1000);
            ps.setLong(5, 16L << 20);
            List<String> lines = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    lines.add(rs.getString(1));
                }
            }
            return lines;
        }
    }
}
