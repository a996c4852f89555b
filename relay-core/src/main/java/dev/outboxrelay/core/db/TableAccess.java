package dev.outboxrelay.core.db;

import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;

/**
 * Whether a session can relay the outbox table at all, asked by both sources before they publish anything: a
 * standby cannot mark rows sent, nor can a role without the privileges. The answers are operator messages.
 */
public final class TableAccess {

    /** Why a session on a standby cannot relay, and what fixes it. */
    public static final String STANDBY = "the database is a standby in recovery (read-only): point --db-url at the"
            + " primary, or wait for this server's promotion";

    /** Privileges the session's role lacks on a table, and the statement that grants them. */
    public record Missing(String role, String privileges, String grant) {
    }

    private TableAccess() {
    }

    /** {@link #STANDBY} when the server is in recovery, else null. */
    public static String standbyProblem(Connection c) throws SQLException {
        try (Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pg_catalog.pg_is_in_recovery()")) {
            rs.next();
            return rs.getBoolean(1) ? STANDBY : null;
        }
    }

    /**
     * Which of {@code privileges} (in their order) the session's role lacks on {@code table}; null when it has them
     * all, or when the table does not exist (the callers say that in their own words).
     */
    public static Missing missingPrivileges(Connection c, OutboxTable table, List<String> privileges)
            throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT (SELECT string_agg(u.p, ', ' ORDER BY u.i)"
                + " FROM unnest(?::text[]) WITH ORDINALITY AS u(p, i)"
                + " WHERE NOT pg_catalog.has_table_privilege(t.oid, u.p)), current_user"
                + " FROM (SELECT pg_catalog.to_regclass(?)::oid AS oid) t WHERE t.oid IS NOT NULL")) {
            ps.setArray(1, c.createArrayOf("text", privileges.toArray()));
            ps.setString(2, table.quoted());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next() || rs.getString(1) == null) {
                    return null;
                }
                String role = rs.getString(2);
                return new Missing(role, rs.getString(1),
                        "GRANT " + rs.getString(1) + " ON " + table.quoted() + " TO \"" + role + "\"");
            }
        }
    }
}
