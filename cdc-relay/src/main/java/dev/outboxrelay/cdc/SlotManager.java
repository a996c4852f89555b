package dev.outboxrelay.cdc;

import dev.outboxrelay.core.acknowledge.Acknowledger;
import dev.outboxrelay.core.db.TableAccess;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure the publication and the replication slot exist before Debezium starts, creating them when the
 * role may, and explaining which privilege is missing when it may not. Also detects a slot that was dropped
 * or invalidated behind the relay's back, so the caller can rescan the table.
 */
final class SlotManager {

    private static final Logger LOG = LoggerFactory.getLogger(SlotManager.class);
    private static final String INSUFFICIENT_PRIVILEGE = "42501";

    /** What {@link #prepare} found and did. */
    enum SlotState {
        /** The slot existed and is usable: streaming resumes from its confirmed position. */
        EXISTING,
        /** There was no slot and no stored offsets: a first start. */
        CREATED,
        /** Offsets exist but the slot was missing or invalidated: recreated; events may only be in the table. */
        RECREATED
    }

    /** The first version whose slots can be synchronized to standbys (the {@code failover} option). */
    static final int FAILOVER_SLOTS_SINCE = 17;

    private final OutboxTable table;
    private final String slot;
    private final String publication;
    private final boolean failover;
    private final boolean onPublishDelete;
    private final boolean offsetsInTable;
    private final Database database;

    SlotManager(CdcSettings settings, Database database) {
        this.table = settings.table();
        this.slot = settings.slotName();
        this.publication = settings.publication();
        this.failover = settings.slotFailover();
        this.onPublishDelete = settings.onPublish() == Acknowledger.OnPublish.DELETE;
        this.offsetsInTable = settings.offsetStore() == CdcSettings.OffsetStore.DB;
        this.database = database;
    }

    /** What the role and server must allow, checked before anything else reads the tables. */
    void checkAccess(Connection c) throws SQLException {
        checkNotAStandby(c);
        checkReplicationAttribute(c);
        checkTablePrivileges(c);
    }

    /** After {@link #checkAccess}: the publication and the slot, created or checked. */
    SlotState prepare(Connection c, boolean offsetsExist) throws SQLException {
        if (failover) {
            FailoverSlots.check(c, slot);
        }
        ensurePublication(c);
        return ensureSlot(c, offsetsExist);
    }

    /**
     * Since PostgreSQL 16 a standby can decode too: the relay would create its slot there (retaining the standby's
     * WAL), publish, and then fail to mark anything sent. A standby may be promoted, so this is retried.
     */
    private static void checkNotAStandby(Connection c) throws SQLException {
        String standby = TableAccess.standbyProblem(c);
        if (standby != null) {
            throw new SQLException(standby, "25006");
        }
    }

    private void checkReplicationAttribute(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT rolreplication OR rolsuper, current_user FROM pg_roles"
                     + " WHERE rolname = current_user")) {
            if (rs.next() && !rs.getBoolean(1)) {
                String role = rs.getString(2);
                throw new CdcSetupException("role '" + role + "' lacks the REPLICATION attribute that CDC mode needs"
                        + " to read the write-ahead log: run ALTER ROLE \"" + role + "\" REPLICATION as a superuser,"
                        + " or use --mode poll");
            }
        }
    }

    /** Refuses a role that could publish rows but not mark them sent: every restart would publish them again. */
    private void checkTablePrivileges(Connection c) throws SQLException {
        TableAccess.Missing missing = TableAccess.missingPrivileges(c, table,
                onPublishDelete ? List.of("SELECT", "UPDATE", "DELETE") : List.of("SELECT", "UPDATE"));
        if (missing != null) {
            throw new CdcSetupException("role '" + missing.role() + "' lacks " + missing.privileges() + " on " + table
                    + ", which CDC mode needs to rescan, mark and dead-letter rows: " + missing.grant());
        }
        if (offsetsInTable) {
            // Without these the engine would fail on its first offset flush and retry forever: say it at start-up.
            OutboxTable offsets = OutboxTable.parse(table.schema() + "." + table.companion("cdc_offsets"));
            TableAccess.Missing noOffsets = TableAccess.missingPrivileges(c, offsets,
                    List.of("SELECT", "INSERT", "UPDATE", "DELETE"));
            if (noOffsets != null) {
                throw new CdcSetupException("role '" + noOffsets.role() + "' lacks " + noOffsets.privileges() + " on "
                        + offsets + ", where CDC mode keeps its stream position (--offset-store db): "
                        + noOffsets.grant());
            }
        }
    }

    private void ensurePublication(Connection c) throws SQLException {
        boolean partitioned = isPartitioned(c);
        Boolean includesTable = null;
        try (PreparedStatement ps = c.prepareStatement("SELECT p.pubinsert, p.pubupdate OR p.pubdelete,"
                + " EXISTS (SELECT 1 FROM pg_publication_tables t WHERE t.pubname = p.pubname"
                + " AND t.schemaname = ? AND t.tablename = ?), p.pubviaroot"
                + " FROM pg_publication p WHERE p.pubname = ?")) {
            ps.setString(1, table.schema());
            ps.setString(2, table.table());
            ps.setString(3, publication);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    if (!rs.getBoolean(1)) {
                        throw new CdcSetupException("publication '" + publication + "' does not publish inserts:"
                                + " run ALTER PUBLICATION \"" + publication + "\" SET (publish = 'insert')");
                    }
                    if (partitioned && !rs.getBoolean(4)) {
                        // Rows would arrive under their partitions' names, which the relay does not stream.
                        throw new CdcSetupException("table " + table + " is partitioned and publication '"
                                + publication + "' publishes its rows under the partitions' names: run ALTER"
                                + " PUBLICATION \"" + publication + "\" SET (publish_via_partition_root = true)");
                    }
                    if (rs.getBoolean(2)) {
                        LOG.warn("Publication '{}' also publishes updates or deletes; the relay ignores them, but"
                                + " publish = 'insert' keeps the WAL stream smaller", publication);
                    }
                    includesTable = rs.getBoolean(3);
                }
            }
        }
        if (includesTable == null) {
            createPublication(c, partitioned);
        } else if (!includesTable) {
            throw new CdcSetupException("publication '" + publication + "' does not include table " + table
                    + ": run ALTER PUBLICATION \"" + publication + "\" ADD TABLE " + table.quoted()
                    + " as the table owner");
        } else {
            checkColumns(c);
            LOG.info("Using publication '{}' for {}", publication, table);
        }
    }

    /**
     * Since PostgreSQL 15 a publication may list the columns it sends. A list without a column the relay reads
     * would turn events into tombstones or drop their headers, so the relay refuses it; a publication of every
     * column works but makes the walsender and Debezium render and decode columns nobody reads, per event.
     */
    private void checkColumns(Connection c) throws SQLException {
        if (!columnListsSupported(c)) {
            return;
        }
        List<String> published;
        try (PreparedStatement ps = c.prepareStatement("SELECT attnames FROM pg_publication_tables"
                + " WHERE pubname = ? AND schemaname = ? AND tablename = ?")) {
            ps.setString(1, publication);
            ps.setString(2, table.schema());
            ps.setString(3, table.table());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                published = List.of((String[]) rs.getArray(1).getArray());
            }
        }
        List<String> read = ChangeHandler.columns(table.layout());
        List<String> missing = read.stream().filter(col -> !published.contains(col)).toList();
        if (!missing.isEmpty()) {
            throw new CdcSetupException("publication '" + publication + "' does not publish column"
                    + (missing.size() == 1 ? " " : "s ") + String.join(", ", missing) + " of table " + table
                    + ", which the relay reads: run `migrate`, or as the table owner: ALTER PUBLICATION \""
                    + publication + "\" DROP TABLE " + table.quoted() + "; ALTER PUBLICATION \"" + publication
                    + "\" ADD TABLE " + table.quoted() + columnList());
        }
        if (published.size() > read.size()) {
            LOG.warn("Publication '{}' sends {} columns of {} and the relay reads {}: `migrate` (schema version 5)"
                    + " limits it to those, which saves the database and the relay work per event",
                    publication, published.size(), table, read.size());
        }
    }

    /** Whether the outbox table is partitioned; false when it does not exist (the later checks say so). */
    private boolean isPartitioned(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT relkind = 'p' FROM pg_class WHERE oid = to_regclass(?)")) {
            ps.setString(1, table.quoted());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() && rs.getBoolean(1);
            }
        }
    }

    private static boolean columnListsSupported(Connection c) throws SQLException {
        return c.getMetaData().getDatabaseMajorVersion() >= 15;
    }

    private String columnList() {
        return " (" + String.join(", ", ChangeHandler.columns(table.layout()).stream()
                .map(col -> col.equals(col.toLowerCase(java.util.Locale.ROOT)) ? col : '"' + col + '"').toList()) + ")";
    }

    private void createPublication(Connection c, boolean partitioned) throws SQLException {
        boolean listed = columnListsSupported(c);
        String sql = "CREATE PUBLICATION \"" + publication + "\" FOR TABLE " + table.quoted()
                + (listed ? columnList() : "") + " WITH (publish = 'insert'"
                + (partitioned ? ", publish_via_partition_root = true)" : ")");
        try (Statement st = c.createStatement()) {
            st.execute(sql);
            LOG.info("Created publication '{}' for {} (inserts only{}{})", publication, table,
                    listed ? ", columns" + columnList() : "", partitioned ? ", published via the partition root" : "");
        } catch (SQLException e) {
            if (INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
                throw new CdcSetupException("publication '" + publication + "' does not exist and role '"
                        + currentUser(c) + "' cannot create it: creating a publication needs the CREATE privilege"
                        + " on the database and ownership of table " + table + " (" + e.getMessage()
                        + "); run `migrate` as the table owner, or as the owner: " + sql, e);
            }
            throw e;
        }
    }

    private SlotState ensureSlot(Connection c, boolean offsetsExist) throws SQLException {
        // invalidation_reason exists since PostgreSQL 17; through jsonb the query runs on every version.
        // So do failover and synced (17+).
        try (PreparedStatement ps = c.prepareStatement("SELECT plugin, database = current_database(),"
                + " wal_status = 'lost', active_pid, to_jsonb(s) ->> 'invalidation_reason',"
                + " coalesce((to_jsonb(s) ->> 'failover')::boolean, false),"
                + " coalesce((to_jsonb(s) ->> 'synced')::boolean, false)"
                + " FROM pg_replication_slots s WHERE slot_name = ?")) {
            ps.setString(1, slot);
            try (ResultSet rs = ps.executeQuery()) {
                if (rs.next()) {
                    if (!"pgoutput".equals(rs.getString(1))) {
                        throw new CdcSetupException("replication slot '" + slot + "' uses plugin '"
                                + rs.getString(1) + "', not pgoutput: drop it or choose another --slot-name");
                    }
                    if (!rs.getBoolean(2)) {
                        throw new CdcSetupException("replication slot '" + slot + "' belongs to another database:"
                                + " choose another --slot-name");
                    }
                    if (!rs.getBoolean(3)) {
                        LOG.info("Using replication slot '{}'{}", slot, rs.getBoolean(7)
                                ? " (synchronized from a former primary)" : "");
                        if (failover && !rs.getBoolean(6)) {
                            FailoverSlots.enable(database, slot);
                        }
                        return SlotState.EXISTING;
                    }
                    LOG.error("Replication slot '{}' was invalidated by PostgreSQL ({}): dropping and recreating it;"
                            + " rows not yet published are recovered by a rescan of {}", slot,
                            invalidationCause(rs.getString(5)), table);
                    dropSlot(c);
                    createSlot(c);
                    return SlotState.RECREATED;
                }
            }
        }
        if (offsetsExist) {
            // Dropped by hand, or the database failed over to a standby that never had the slot (a logical slot
            // is not replicated unless PostgreSQL 17+ synchronizes it); either way the rescan recovers.
            LOG.error("Replication slot '{}' is missing although the relay has stored offsets: it was dropped, or"
                    + " the database failed over to a server without it. Recreating it; rows not yet published are"
                    + " recovered by a rescan of {}", slot, table);
            createSlot(c);
            return SlotState.RECREATED;
        }
        createSlot(c);
        return SlotState.CREATED;
    }

    /** Why PostgreSQL invalidated a slot, for the operator: {@code reason} is null before PostgreSQL 17. */
    static String invalidationCause(String reason) {
        if (reason == null || reason.equals("wal_removed")) {
            return "the WAL it needed was removed, see max_slot_wal_keep_size";
        }
        if (reason.equals("idle_timeout")) {
            return "it was inactive longer than idle_replication_slot_timeout";
        }
        return "invalidation_reason " + reason;
    }

    private void createSlot(Connection c) throws SQLException {
        // Arguments: name, plugin, temporary, two-phase, failover (the last since PostgreSQL 17).
        try (PreparedStatement ps = c.prepareStatement("SELECT lsn FROM pg_create_logical_replication_slot(?,"
                + " 'pgoutput'" + (failover ? ", false, false, true" : "") + ")")) {
            ps.setString(1, slot);
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                LOG.info("Created replication slot '{}' (pgoutput{}) at {}", slot, failover ? ", failover" : "",
                        rs.getString(1));
            }
        } catch (SQLException e) {
            if (INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
                throw new CdcSetupException("replication slot '" + slot + "' does not exist and role '"
                        + currentUser(c) + "' cannot create it: creating a slot needs the REPLICATION attribute ("
                        + e.getMessage() + "); run ALTER ROLE ... REPLICATION, or as a superuser: SELECT"
                        + " pg_create_logical_replication_slot('" + slot + "', 'pgoutput')", e);
            }
            throw e;
        }
    }

    private void dropSlot(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_drop_replication_slot(?)")) {
            ps.setString(1, slot);
            ps.execute();
        }
    }

    private static String currentUser(Connection c) throws SQLException {
        try (Statement st = c.createStatement(); ResultSet rs = st.executeQuery("SELECT current_user")) {
            rs.next();
            return rs.getString(1);
        }
    }

    /**
     * WAL the slot keeps PostgreSQL from removing: {@code pg_current_wal_lsn() - confirmed_flush_lsn}, in bytes;
     * empty when the slot does not exist.
     */
    static OptionalLong retainedWalBytes(Connection c, String slot) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT pg_wal_lsn_diff(pg_current_wal_lsn(),"
                + " confirmed_flush_lsn)::bigint FROM pg_replication_slots WHERE slot_name = ?")) {
            ps.setString(1, slot);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return OptionalLong.empty();
                }
                long bytes = rs.getLong(1);
                return rs.wasNull() ? OptionalLong.empty() : OptionalLong.of(bytes);
            }
        }
    }
}
