package dev.outboxrelay.poll;

import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.core.delivery.OnPoison;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import org.postgresql.PGConnection;

/** {@link UnsentRows} over the poll source's own queries and {@link CommitHorizon}. */
final class JdbcUnsentRows implements UnsentRows {

    private final Connection c;
    private final OutboxQueries queries;
    private final PreparedStatement fetch;
    private CommitHorizon horizon;

    private JdbcUnsentRows(Connection c, OutboxQueries queries) throws SQLException {
        this.c = c;
        this.queries = queries;
        this.fetch = queries.prepareFetch(c);
    }

    static UnsentRows open(Connection c, OutboxTable table, OnPoison onPoison, Shard shard, String applicationName)
            throws SQLException {
        OutboxQueries queries = new OutboxQueries(table, onPoison, shard);
        queries.prepareSession(c, applicationName);
        return new JdbcUnsentRows(c, queries);
    }

    @Override
    public String sessionProblem(boolean deletes) throws SQLException {
        return queries.sessionProblem(c, deletes);
    }

    @Override
    public void start() throws SQLException {
        horizon = CommitHorizon.open(c, queries);
        queries.listen(c);
    }

    @Override
    public Batch next(long[] inFlight, String[] parkedKeys, int limit, long maxBytes) throws SQLException {
        if (horizon == null) {
            throw new IllegalStateException("start() first");
        }
        horizon.advance(c);
        List<OutboxRow> rows = queries.fetch(fetch, inFlight, horizon.floor(), parkedKeys, limit, maxBytes);
        horizon.fetched(c, rows);
        long[] seqs = new long[rows.size()];
        for (int i = 0; i < seqs.length; i++) {
            seqs[i] = rows.get(i).seq();
        }
        return new Batch(items(rows), seqs);
    }

    @Override
    public void awaitInserts(int millis) throws SQLException {
        c.unwrap(PGConnection.class).getNotifications(Math.max(1, millis));
    }

    @Override
    public void close() {
        try {
            fetch.close();
        } catch (SQLException e) {
            // the connection is going away with it
        }
    }

    /** The rows as pipeline items: the event, or why the row is malformed. */
    static List<Item> items(List<OutboxRow> rows) {
        List<Item> items = new ArrayList<>(rows.size());
        for (OutboxRow r : rows) {
            items.add(Item.fromColumns(r.id(), r.aggregateType(), r.aggregateId(), r.eventType(), r.payload(),
                    r.headers(), r.createdAt(), r.columns()));
        }
        return items;
    }
}
