package dev.outboxrelay.bench;

import dev.outboxrelay.core.acknowledge.Acknowledger;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestPostgres;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import org.postgresql.PGConnection;

/**
 * What the database itself charges per event for the poll source's statements, without Kafka, the relay JVM or
 * other load: the floor under poll mode's speed, and what schema or statement changes would move it. Each
 * variant gets a fresh outbox of {@link #ROWS} bench-shaped rows, then fetches and acknowledges them in batches
 * of 1,000 on one session, timing each statement at the client. After an untimed warm-up, variants run
 * interleaved in a rotating order, {@link #ROUNDS} times, and the median is reported, because a shared 2-core
 * machine moves single numbers by ±20 %. Every variant must leave no unacknowledged row behind, or the run fails.
 */
final class DbCosts {

    static final int ROWS = 200_000;
    static final int BATCH = 1_000;
    static final int ROUNDS = 3;

    /**
     * One way of storing and acknowledging rows.
     *
     * @param name  what is measured
     * @param setup DDL applied to the fresh outbox before it is filled
     * @param ack   the acknowledging statement, or {@code null} for the relay's own (via {@link Acknowledger});
     *              its parameters are the batch's seqs and ids when {@code bySeq}, else its ids
     * @param bySeq whether {@code ack} takes the seqs first
     * @param mode  mark or delete
     */
    record Variant(String name, List<String> setup, String ack, boolean bySeq, Acknowledger.OnPublish mode) {
    }

    /** Per-row costs of one variant, medians over the rounds, in microseconds. */
    record Cost(Variant variant, double insertMicros, double fetchMicros, double ackMicros) {
    }

    // The poll source's fetch as OutboxQueries builds it with the default --on-poison block (the bench does not
    // depend on polling-relay, whose statements are package-private).
    private static final String FETCH = "SELECT o.seq, o.id, o.aggregate_type, o.aggregate_id, o.event_type,"
            + " o.payload::text, o.headers::text, o.created_at, o.attempts FROM outbox o"
            + " WHERE o.sent_at IS NULL AND o.dead_lettered_at IS NULL AND (o.seq = ANY(?::bigint[])) IS NOT TRUE"
            + " AND o.seq >= ?"
            + " AND NOT EXISTS (SELECT 1 FROM outbox d WHERE d.dead_lettered_at IS NOT NULL AND d.discarded_at IS NULL"
            + " AND d.aggregate_id = o.aggregate_id AND d.seq < o.seq) ORDER BY o.seq LIMIT ?";

    static final List<Variant> VARIANTS = List.of(
            new Variant("mark: relay today (UPDATE by id)", List.of(), null, false, Acknowledger.OnPublish.MARK),
            new Variant("mark: UPDATE by seq and id (unsent index)", List.of(),
                    "UPDATE outbox SET sent_at = now() WHERE seq = ANY(?) AND id = ANY(?) AND sent_at IS NULL"
                            + " AND dead_lettered_at IS NULL", true, Acknowledger.OnPublish.MARK),
            new Variant("mark: without the sent_at btree", List.of("DROP INDEX outbox_sent_at_idx"), null, false,
                    Acknowledger.OnPublish.MARK),
            new Variant("mark: BRIN instead of the sent_at btree", List.of("DROP INDEX outbox_sent_at_idx",
                    "CREATE INDEX outbox_sent_at_brin ON outbox USING brin (sent_at)"), null, false,
                    Acknowledger.OnPublish.MARK),
            new Variant("mark: table fillfactor 50", List.of("ALTER TABLE outbox SET (fillfactor = 50)"), null, false,
                    Acknowledger.OnPublish.MARK),
            new Variant("mark as a move: DELETE by id into an unindexed outbox_sent table",
                    List.of("CREATE TABLE outbox_sent (LIKE outbox)"),
                    "WITH d AS (DELETE FROM outbox WHERE id = ANY(?) RETURNING *) INSERT INTO outbox_sent"
                            + " SELECT id, aggregate_type, aggregate_id, event_type, payload, headers, created_at, seq,"
                            + " now(), attempts, last_error, dead_lettered_at, discarded_at FROM d",
                    false, Acknowledger.OnPublish.MARK),
            new Variant("delete: relay today (DELETE by id)", List.of(), null, false, Acknowledger.OnPublish.DELETE),
            new Variant("delete: DELETE by seq and id (unsent index)", List.of(),
                    "DELETE FROM outbox WHERE seq = ANY(?) AND id = ANY(?) AND sent_at IS NULL"
                            + " AND dead_lettered_at IS NULL", true, Acknowledger.OnPublish.DELETE));

    private DbCosts() {
    }

    /** Runs every variant {@link #ROUNDS} times on a fresh database each; returns medians in declaration order. */
    static List<Cost> measure(TestPostgres postgres) throws Exception {
        return measure(postgres, ROWS, ROUNDS);
    }

    static List<Cost> measure(TestPostgres postgres, int rows, int rounds) throws Exception {
        List<List<double[]>> samples = new ArrayList<>();
        for (int i = 0; i < VARIANTS.size(); i++) {
            samples.add(new ArrayList<>());
        }
        // Untimed warm-up (JIT, first database), then each round starts one variant later, so no variant always
        // runs first or right after the same neighbour.
        once(postgres, VARIANTS.get(0), "dbcost_warmup", Math.min(rows, 20_000));
        for (int round = 1; round <= rounds; round++) {
            for (int k = 0; k < VARIANTS.size(); k++) {
                int i = (k + round - 1) % VARIANTS.size();
                Variant v = VARIANTS.get(i);
                double[] s = once(postgres, v, "dbcost_" + round + "_" + i, rows);
                System.err.printf(Locale.ROOT, "round %d/%d %s: insert %.1f, fetch %.1f, acknowledge %.1f µs/row%n",
                        round, rounds, v.name(), s[0], s[1], s[2]);
                samples.get(i).add(s);
            }
        }
        List<Cost> costs = new ArrayList<>();
        for (int i = 0; i < VARIANTS.size(); i++) {
            List<double[]> s = samples.get(i);
            costs.add(new Cost(VARIANTS.get(i), median(s, 0), median(s, 1), median(s, 2)));
        }
        return costs;
    }

    private static double[] once(TestPostgres postgres, Variant v, String name, int rows) throws Exception {
        TestDatabase db = postgres.createDatabase(name);
        try {
            return once(db, v, rows);
        } finally {
            // Dropped at once, so autovacuum of earlier variants' tables does not run during later ones.
            try (Connection admin = postgres.connectAdmin("postgres"); Statement st = admin.createStatement()) {
                st.execute("DROP DATABASE \"" + db.name() + "\" WITH (FORCE)");
                st.execute("CHECKPOINT");
            }
        }
    }

    private static double[] once(TestDatabase db, Variant v, int rows) throws Exception {
        try (Connection c = db.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
            try (Statement st = c.createStatement()) {
                for (String ddl : v.setup()) {
                    st.execute(ddl);
                }
            }
            double insert = fill(c, rows);
            try (Statement st = c.createStatement()) {
                st.execute("VACUUM ANALYZE outbox");
                // The relay's fetch session settings (OutboxQueries.prepareSession).
                st.execute("SET plan_cache_mode = force_custom_plan");
                st.execute("SET enable_sort = off");
            }
            double[] costs = drain(c, v, insert, rows);
            try (Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT count(*) FROM outbox WHERE sent_at IS NULL")) {
                rs.next();
                if (rs.getLong(1) != 0) {
                    throw new IllegalStateException(v.name() + ": " + rs.getLong(1) + " rows left unacknowledged");
                }
            }
            return costs;
        }
    }

    /** Inserts {@code rows} rows in 100-row transactions, as the bench's writer does; µs per row. */
    private static double fill(Connection c, int rows) throws SQLException {
        c.setAutoCommit(false);
        long t0 = System.nanoTime();
        try (PreparedStatement ps = c.prepareStatement(OutboxLoad.INSERT)) {
            for (int seq = 0; seq < rows; seq++) {
                OutboxLoad.addRow(ps, seq, Payloads.aggregateId(seq % 1000));
                if (seq % OutboxLoad.TX_ROWS == OutboxLoad.TX_ROWS - 1) {
                    ps.executeBatch();
                    c.commit();
                }
            }
            ps.executeBatch();
        }
        c.commit();
        double micros = (System.nanoTime() - t0) / 1e3 / rows;
        c.setAutoCommit(true);
        return micros;
    }

    /** Fetches and acknowledges every row in batches; returns µs per row for insert, fetch and acknowledge. */
    private static double[] drain(Connection c, Variant v, double insert, int expected) throws SQLException {
        Acknowledger relay = Acknowledger.forTable(OutboxTable.DEFAULT, v.mode());
        long fetchNanos = 0;
        long ackNanos = 0;
        long rows = 0;
        long floor = 0;
        try (PreparedStatement fetch = c.prepareStatement(FETCH);
             PreparedStatement ack = v.ack() == null ? null : c.prepareStatement(v.ack())) {
            while (true) {
                long t0 = System.nanoTime();
                fetch.setArray(1, c.unwrap(PGConnection.class).createArrayOf("int8", new long[0]));
                fetch.setLong(2, floor);
                fetch.setInt(3, BATCH);
                List<UUID> ids = new ArrayList<>(BATCH);
                long[] seqs = new long[BATCH];
                try (ResultSet rs = fetch.executeQuery()) {
                    while (rs.next()) {
                        seqs[ids.size()] = rs.getLong(1);
                        ids.add(rs.getObject(2, UUID.class));
                        for (int col = 3; col <= 7; col++) {
                            rs.getString(col);
                        }
                        rs.getObject(8, java.time.OffsetDateTime.class);
                        rs.getInt(9);
                    }
                }
                long t1 = System.nanoTime();
                if (ids.isEmpty()) {
                    break;
                }
                if (ack == null) {
                    relay.acknowledge(c, ids);
                } else if (v.bySeq()) {
                    ack.setArray(1, c.unwrap(PGConnection.class).createArrayOf("int8",
                            java.util.Arrays.copyOf(seqs, ids.size())));
                    ack.setArray(2, c.createArrayOf("uuid", ids.toArray()));
                    ack.executeUpdate();
                } else {
                    ack.setArray(1, c.createArrayOf("uuid", ids.toArray()));
                    ack.executeUpdate();
                }
                fetchNanos += t1 - t0;
                ackNanos += System.nanoTime() - t1;
                rows += ids.size();
                floor = seqs[ids.size() - 1] + 1;
            }
        }
        if (rows != expected) {
            throw new IllegalStateException(v.name() + ": drained " + rows + " of " + expected + " rows");
        }
        return new double[] {insert, fetchNanos / 1e3 / rows, ackNanos / 1e3 / rows};
    }

    private static double median(List<double[]> samples, int index) {
        double[] values = samples.stream().mapToDouble(s -> s[index]).sorted().toArray();
        return values[values.length / 2];
    }

    /** The result as markdown, with the command and the machine. */
    static String markdown(List<Cost> costs, String command, Instant started, long seconds, String postgresNote) {
        StringBuilder md = new StringBuilder();
        md.append("# What the database charges per event (").append(started).append(")\n\n");
        md.append("Command: `").append(command).append("`  \nWall time: ").append(seconds).append(" s.\n\n");
        md.append("Each variant: a fresh outbox, ").append(String.format(Locale.ROOT, "%,d", ROWS))
                .append(" bench-shaped rows (~300-byte JSON payloads, 1,000 keys) inserted in 100-row")
                .append(" transactions, `VACUUM ANALYZE`, then one session fetches ").append(BATCH)
                .append(" rows with the poll source's statement and acknowledges them, until the table is")
                .append(" drained. Client-side times per row (statement, transfer, JDBC decoding), medians of ")
                .append(ROUNDS).append(" rounds after an untimed warm-up, variants interleaved in a rotating order.")
                .append(" No Kafka, no other load: this is the floor under the relay, not its speed. Mark mode")
                .append(" also pays the retention purge later (a DELETE per row), which is not counted here.\n\n");
        md.append("| variant | insert µs/row (the application's cost) | fetch µs/row | acknowledge µs/row |")
                .append(" fetch + acknowledge µs/row |\n|---|---:|---:|---:|---:|\n");
        for (Cost c : costs) {
            md.append(String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.1f |%n", c.variant().name(),
                    c.insertMicros(), c.fetchMicros(), c.ackMicros(), c.fetchMicros() + c.ackMicros()));
        }
        md.append("\n").append(postgresNote).append(".\n");
        md.append("Machine: ").append(String.join("; ", MachineNotes.describe())).append(".\n");
        return md.toString();
    }
}
