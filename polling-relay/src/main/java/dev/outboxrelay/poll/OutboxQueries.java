package dev.outboxrelay.poll;

import dev.outboxrelay.core.db.TableAccess;
import dev.outboxrelay.core.delivery.OnPoison;
import dev.outboxrelay.schema.AdvisoryLocks;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxSql;
import dev.outboxrelay.core.event.OutboxEvents;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.schema.TableLayout;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.postgresql.PGConnection;

/** The poll source's SQL, rendered once for a table. */
final class OutboxQueries {

    /** The bookkeeping columns the poll source's statements name, besides the table's event columns. */
    private static final List<String> BOOKKEEPING = List.of("seq", "sent_at", "attempts", "last_error",
            "dead_lettered_at", "discarded_at", "retry_at");
    /**
     * A lock on the table or, when it is partitioned, on any of its partitions: an INSERT straight into a
     * partition holds RowExclusiveLock on the partition but only AccessShareLock on the parent, and since
     * PostgreSQL 17 it draws its seq from the parent's identity sequence. Two parameters, both the table.
     */
    private static final String ON_TABLE_OR_PARTITION = "l.locktype = 'relation' AND (l.relation = ?::regclass"
            + " OR l.relation IN (SELECT t.relid FROM pg_catalog.pg_partition_tree(?::regclass) t))";

    private static final String[] NO_KEYS = new String[0];

    private final OutboxTable table;
    private final String fetchSql;
    private final String lowestPendingSql;

    /** The shard the fetch reads, or null for the whole table. */
    private final UnsentRows.Shard shard;

    OutboxQueries(OutboxTable table, OnPoison onPoison) {
        this(table, onPoison, null);
    }

    /** Queries whose fetch reads only key-hash {@code shard} (null: every row). */
    OutboxQueries(OutboxTable table, OnPoison onPoison, UnsentRows.Shard shard) {
        this.table = table;
        this.shard = shard;
        OutboxSql sql = OutboxSql.forTable(table);
        this.fetchSql = sql.fetchUnsent(onPoison == OnPoison.BLOCK, shard != null);
        this.lowestPendingSql = sql.lowestPending();
    }

    /**
     * Prepares a relay session: {@code application_name}, so operators can tell relay sessions apart in
     * {@code pg_stat_activity}; custom plans, so the in-flight exclusion list is planned as a constant and
     * PostgreSQL can hash it; and no explicit sorts, so "the oldest unsent rows" is always read in order from the
     * unsent-rows index. The outbox's statistics are stale by design (a backlog arrives and drains between two
     * ANALYZE runs): after ANALYZE saw a drained table (0 rows in 13,000 pages), PostgreSQL 15 planned the fetch
     * as a bitmap scan of every unsent row plus a top-N sort, 1.1 s per fetch with 300,000 rows waiting and worse
     * as the backlog grew (a benchmark run stopped delivering for a minute); the index scan takes 22 ms.
     */
    void prepareSession(Connection c, String applicationName) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT set_config('application_name', ?, false),"
                + " set_config('plan_cache_mode', 'force_custom_plan', false),"
                + " set_config('enable_sort', 'off', false)")) {
            ps.setString(1, applicationName);
            ps.execute();
        }
    }

    /**
     * Why this session cannot relay the table, or null: the server is a standby (read-only while in recovery),
     * the table does not exist, or the role lacks a privilege the poller needs ({@code DELETE} only when
     * {@code deletes}). These do not pass by reconnecting at once, unlike a broken connection.
     */
    String sessionProblem(Connection c, boolean deletes) throws SQLException {
        String standby = TableAccess.standbyProblem(c);
        if (standby != null) {
            return standby;
        }
        try (PreparedStatement ps = c.prepareStatement("SELECT t.oid IS NOT NULL,"
                + " (SELECT string_agg(n, ', ') FROM unnest(?::text[]) n WHERE NOT EXISTS (SELECT 1"
                + " FROM pg_catalog.pg_attribute a WHERE a.attrelid = t.oid AND a.attname = n AND NOT a.attisdropped))"
                + " FROM (SELECT pg_catalog.to_regclass(?)::oid AS oid) t")) {
            ps.setArray(1, c.createArrayOf("text", columns().toArray()));
            ps.setString(2, table.quoted());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return "table " + table + " does not exist: run migrate, or check --table";
                }
                if (rs.getString(2) != null) {
                    return "table " + table + " lacks column(s) " + rs.getString(2) + (table.layout().isRelay()
                            ? " of the current schema: run migrate with this relay's version"
                            : ": check --table-format and --column, or run migrate --adopt");
                }
            }
        }
        TableAccess.Missing missing = TableAccess.missingPrivileges(c, table,
                deletes ? List.of("SELECT", "UPDATE", "DELETE") : List.of("SELECT", "UPDATE"));
        return missing == null ? null
                : "role '" + missing.role() + "' lacks " + missing.privileges() + " on " + table + ": " + missing.grant();
    }

    /** Every column the poll source's statements name. */
    private List<String> columns() {
        List<String> names = new java.util.ArrayList<>();
        for (TableLayout.Column col : TableLayout.Column.values()) {
            if (table.layout().name(col) != null) {
                names.add(table.layout().name(col));
            }
        }
        names.addAll(table.layout().extras());
        names.addAll(BOOKKEEPING);
        return names;
    }

    /** Tries to become the table's active relay: its relay lock ({@link AdvisoryLocks}), for this session. */
    boolean tryLock(Connection c, String instance) throws SQLException {
        return AdvisoryLocks.tryRelayLock(c, table, instance);
    }

    /** Subscribes to the insert notifications of migration 2. */
    void listen(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute("LISTEN \"" + OutboxSchema.notifyChannel(table) + "\"");
        }
    }

    /** The fetch statement's SQL (tests check its plan). */
    String fetchSql() {
        return fetchSql;
    }

    PreparedStatement prepareFetch(Connection c) throws SQLException {
        return c.prepareStatement(fetchSql);
    }

    /** The oldest unsent, live rows from {@code floor} on in seq order, except those with the given seqs. */
    List<OutboxRow> fetch(PreparedStatement fetch, long[] excluded, long floor, int limit) throws SQLException {
        return fetch(fetch, excluded, floor, NO_KEYS, limit, Long.MAX_VALUE);
    }

    /**
     * The same, also leaving out the rows of {@code parkedKeys} (their events wait; see KeyParking), and stopping
     * once the rows read hold about {@code maxBytes} (always at least one row; see OutboxSql#fetchUnsent).
     */
    List<OutboxRow> fetch(PreparedStatement fetch, long[] excluded, long floor, String[] parkedKeys, int limit,
                          long maxBytes) throws SQLException {
        // A primitive array: the driver writes it without boxing or per-element escaping (seen in profiles).
        fetch.setArray(1, fetch.getConnection().unwrap(PGConnection.class).createArrayOf("int8", excluded));
        fetch.setLong(2, floor);
        fetch.setArray(3, fetch.getConnection().createArrayOf("text", parkedKeys));
        int next = 4;
        if (shard != null) {
            fetch.setInt(next++, shard.count());
            fetch.setInt(next++, shard.index());
        }
        fetch.setInt(next++, limit);
        fetch.setLong(next, maxBytes);
        List<OutboxRow> rows = new ArrayList<>(limit);
        try (ResultSet rs = fetch.executeQuery()) {
            while (rs.next()) {
                rows.add(new OutboxRow(rs.getLong(1), rs.getObject(2, UUID.class), rs.getString(3), rs.getString(4),
                        rs.getString(5), OutboxEvents.payload(rs, 6), rs.getString(7),
                        rs.getObject(8, OffsetDateTime.class).toInstant(), rs.getInt(9),
                        OutboxEvents.columns(rs, 10, table.layout().extras())));
            }
        }
        return rows;
    }

    /**
     * The identity sequence's cache size behind {@code seq}, or 0 when {@code seq} is not drawn from a sequence.
     * With a cache above 1 sessions draw seqs from private ranges, so seq order is not draw order.
     */
    long seqCache(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT s.seqcache FROM pg_catalog.pg_sequence s"
                + " WHERE s.seqrelid = pg_catalog.pg_get_serial_sequence(?, 'seq')::regclass")) {
            ps.setString(1, table.quoted());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getLong(1) : 0;
            }
        }
    }

    /**
     * The transactions (virtual ids) that may be writing the table now: every holder of a lock stronger than
     * a plain read's. An INSERT holds RowExclusiveLock from before it draws its seq until its transaction ends.
     */
    String[] writers(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT coalesce(array_agg(DISTINCT l.virtualtransaction),"
                + " '{}') FROM pg_catalog.pg_locks l WHERE " + ON_TABLE_OR_PARTITION
                + " AND l.mode <> 'AccessShareLock' AND l.pid IS DISTINCT FROM pg_catalog.pg_backend_pid()")) {
            ps.setString(1, table.quoted());
            ps.setString(2, table.quoted());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return (String[]) rs.getArray(1).getArray();
            }
        }
    }

    /**
     * Whether any of {@code writers} still holds a lock on the table, or a prepared transaction does (a
     * transaction that prepares moves its locks to a new virtual id, and its rows commit later).
     */
    boolean stillWriting(Connection c, String[] writers) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT EXISTS (SELECT 1 FROM pg_catalog.pg_locks l"
                + " WHERE " + ON_TABLE_OR_PARTITION
                + " AND (l.virtualtransaction = ANY(?::text[]) OR l.pid IS NULL))")) {
            ps.setString(1, table.quoted());
            ps.setString(2, table.quoted());
            ps.setArray(3, c.createArrayOf("text", writers));
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getBoolean(1);
            }
        }
    }

    /** The lowest seq of an unsent live row at or above {@code floor} or of any live dead letter; -1 if none. */
    long lowestPending(Connection c, long floor) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(lowestPendingSql)) {
            ps.setLong(1, floor);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                long seq = rs.getLong(1);
                return rs.wasNull() ? -1 : seq;
            }
        }
    }
}
