package dev.outboxrelay.testkit.contract;

import dev.outboxrelay.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

/**
 * Turns a migrated, still empty outbox table into a hash-partitioned one with the same columns, defaults,
 * identity, indexes and triggers, the way docs/schema.md ("A partitioned outbox table") tells an operator to:
 * the publications that held the table hold the new one, with the same columns, and publish it
 * under its own name ({@code publish_via_partition_root}); the relay's role gets its privileges back.
 */
public final class PartitionedOutbox {

    private PartitionedOutbox() {
    }

    /**
     * Replaces {@code table} ({@code schema.name}) by a table partitioned by hash of {@code id} into
     * {@code partitions} partitions named {@code name_p0}, {@code name_p1}, ...
     */
    public static void convert(TestDatabase database, String table, int partitions) {
        String name = table.substring(table.indexOf('.') + 1);
        String old = name + "_unpartitioned";
        try (Connection c = database.connect()) {
            c.setAutoCommit(false);
            List<String> triggers = strings(c, "SELECT pg_get_triggerdef(oid) FROM pg_trigger"
                    + " WHERE tgrelid = ?::regclass AND NOT tgisinternal", table);
            // attnames exists since PostgreSQL 15; through jsonb the query also runs on 14 (no column lists).
            List<String> publications = strings(c, "SELECT quote_ident(t.pubname) || ' ADD TABLE ' || ?"
                    + " || coalesce(' (' || (SELECT string_agg(quote_ident(a), ', ')"
                    + " FROM jsonb_array_elements_text(to_jsonb(t) -> 'attnames') a) || ')', '')"
                    + " FROM pg_publication_tables t WHERE t.schemaname || '.' || t.tablename = ?", table, table);
            List<String> pubNames = strings(c, "SELECT quote_ident(pubname) FROM pg_publication_tables"
                    + " WHERE schemaname || '.' || tablename = ?", table);
            try (Statement st = c.createStatement()) {
                st.execute("ALTER TABLE " + table + " RENAME TO " + old);
                String schema = table.substring(0, table.indexOf('.'));
                st.execute("CREATE TABLE " + table + " (LIKE " + schema + "." + old + " INCLUDING ALL)"
                        + " PARTITION BY HASH (id)");
                for (int i = 0; i < partitions; i++) {
                    st.execute("CREATE TABLE " + table + "_p" + i + " PARTITION OF " + table
                            + " FOR VALUES WITH (MODULUS " + partitions + ", REMAINDER " + i + ")");
                }
                st.execute("DROP TABLE " + schema + "." + old);
                for (String trigger : triggers) {
                    st.execute(trigger);
                }
                // Before adding: PostgreSQL refuses a column list for a partitioned table published per partition.
                for (String pub : pubNames) {
                    st.execute("ALTER PUBLICATION " + pub + " SET (publish_via_partition_root = true)");
                }
                for (String add : publications) {
                    st.execute("ALTER PUBLICATION " + add);
                }
                st.execute("GRANT ALL ON " + table + " TO " + database.relayUser());
            }
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException("Could not partition " + table + " in " + database.name(), e);
        }
    }

    private static List<String> strings(Connection c, String sql, String... params) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            for (int i = 0; i < params.length; i++) {
                ps.setString(i + 1, params[i]);
            }
            List<String> out = new ArrayList<>();
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(rs.getString(1));
                }
            }
            return out;
        }
    }
}
