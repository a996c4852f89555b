package dev.outboxrelay.cdc;

import java.sql.Connection;
import java.sql.DatabaseMetaData;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code --slot-failover}: PostgreSQL 17 can synchronize a logical slot to standbys that run with
 * {@code sync_replication_slots = on}, so after a failover the promoted server has the slot and CDC resumes
 * from it; without it the slot is missing there and the relay recreates it and rescans the table.
 */
final class FailoverSlots {

    private static final Logger LOG = LoggerFactory.getLogger(FailoverSlots.class);

    private FailoverSlots() {
    }

    /** Refuses a server too old for failover slots; warns when the primary does not wait for its standbys. */
    static void check(Connection c, String slot) throws SQLException {
        DatabaseMetaData md = c.getMetaData();
        if (md.getDatabaseMajorVersion() < SlotManager.FAILOVER_SLOTS_SINCE) {
            throw new CdcSetupException("--slot-failover needs PostgreSQL " + SlotManager.FAILOVER_SLOTS_SINCE
                    + " or later, and the database runs " + md.getDatabaseProductVersion()
                    + ": remove the option, or upgrade");
        }
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT current_setting('synchronized_standby_slots')")) {
            rs.next();
            if (rs.getString(1).isBlank()) {
                // Then a walsender may stream a commit the standby has not received yet: after a failover the
                // relay would have published an event whose transaction the new primary never had.
                LOG.warn("Replication slot '{}' is a failover slot but synchronized_standby_slots is empty: set it"
                        + " on the primary to the standbys' physical slots, so the relay never publishes an event"
                        + " a standby has not received", slot);
            }
        }
    }

    /** See {@link CdcSource#heldBackBy}; failover and synchronized_standby_slots exist since PostgreSQL 17. */
    static String heldBackBy(Connection c, String slot) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT (SELECT string_agg(btrim(n), ', ')"
                + " FROM unnest(string_to_array(current_setting('synchronized_standby_slots', true), ',')) n"
                + " WHERE btrim(n) <> '' AND NOT EXISTS (SELECT 1 FROM pg_replication_slots r"
                + " WHERE r.slot_name = btrim(n) AND r.active))"
                + " FROM pg_replication_slots s WHERE s.slot_name = ?"
                + " AND coalesce((to_jsonb(s) ->> 'failover')::boolean, false)")) {
            ps.setString(1, slot);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? rs.getString(1) : null;
            }
        }
    }

    /** Makes the existing {@code slot} a failover slot (ALTER_REPLICATION_SLOT, a replication command). */
    static void enable(Database database, String slot) throws SQLException {
        try (Connection c = database.openReplication(); Statement st = c.createStatement()) {
            st.execute("ALTER_REPLICATION_SLOT \"" + slot + "\" ( FAILOVER true )");
        }
        LOG.info("Replication slot '{}' is now a failover slot: standbys with sync_replication_slots = on keep"
                + " a copy", slot);
    }
}
