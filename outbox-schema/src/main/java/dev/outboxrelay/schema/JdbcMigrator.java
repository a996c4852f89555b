package dev.outboxrelay.schema;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

final class JdbcMigrator implements Migrator {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcMigrator.class);
    /** SQLSTATE of "permission denied". */
    private static final String INSUFFICIENT_PRIVILEGE = "42501";

    private final MigrationPlan plan;

    JdbcMigrator(MigrationPlan plan) {
        this.plan = plan;
    }

    @Override
    public MigrationResult migrate(Connection connection) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            MigrationResult result = migrateInTransaction(connection);
            connection.commit();
            return result;
        } catch (SQLException | RuntimeException e) {
            connection.rollback();
            throw e;
        } finally {
            connection.setAutoCommit(autoCommit);
        }
    }

    private MigrationResult migrateInTransaction(Connection c) throws SQLException {
        try (Statement st = c.createStatement()) {
            st.execute(lockStatement());
            if (!schemaExists(c)) {
                // Only when missing: CREATE SCHEMA needs a privilege a role using an existing schema may lack.
                execute(st, createSchemaStatement(), "creating schema " + plan.schema());
            }
            execute(st, createHistoryStatement(), "creating the history table " + plan.historyTable());
        }
        Map<Integer, String> applied = appliedChecksums(c);
        int before = applied.keySet().stream().mapToInt(Integer::intValue).max().orElse(0);
        if (before > plan.latestVersion()) {
            throw new MigrationException(plan.target() + " is at schema version " + before
                    + " but this relay knows only up to version " + plan.latestVersion() + ": upgrade the relay");
        }
        List<Migration> done = new ArrayList<>();
        for (Migration m : plan.migrations()) {
            String recorded = applied.get(m.version());
            if (recorded != null) {
                if (!m.accepts(recorded)) {
                    throw new MigrationException("migration " + m.version() + " (" + m.description() + ") of "
                            + plan.target() + " was applied with a different script (checksum " + recorded
                            + ", expected " + m.checksum() + "); the schema was changed by hand or with other options");
                }
                continue;
            }
            LOG.info("Applying migration {} ({}) to {}", m.version(), m.description(), plan.target());
            try (Statement st = c.createStatement()) {
                execute(st, m.sql(), "migration " + m.version() + " (" + m.description() + ")");
            }
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO " + plan.historyTable()
                    + " (target, version, description, checksum) VALUES (?, ?, ?, ?)")) {
                ps.setString(1, plan.target());
                ps.setInt(2, m.version());
                ps.setString(3, m.description());
                ps.setString(4, m.checksum());
                ps.executeUpdate();
            }
            done.add(m);
        }
        int after = done.isEmpty() ? before : done.get(done.size() - 1).version();
        return new MigrationResult(before, Math.max(before, after), done);
    }

    /** Runs {@code sql}; a missing privilege becomes one line naming the step and the grants migrate needs. */
    private void execute(Statement st, String sql, String step) throws SQLException {
        try {
            st.execute(sql);
        } catch (SQLException e) {
            if (!INSUFFICIENT_PRIVILEGE.equals(e.getSQLState())) {
                throw e;
            }
            String reason = e.getMessage() == null ? "permission denied" : e.getMessage().lines().findFirst()
                    .orElse("permission denied").replaceFirst("^ERROR: ", "");
            throw new MigrationException(step + " of " + plan.target() + " failed: " + reason + "; migrate needs"
                    + " CONNECT and CREATE on the database (CREATE PUBLICATION needs it) and USAGE and CREATE on the"
                    + " schema, see docs/schema.md, \"Privileges\"", e);
        }
    }

    private boolean schemaExists(Connection c) throws SQLException {
        try (PreparedStatement ps = c.prepareStatement("SELECT 1 FROM pg_namespace WHERE nspname = ?")) {
            ps.setString(1, plan.schema());
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next();
            }
        }
    }

    private Map<Integer, String> appliedChecksums(Connection c) throws SQLException {
        Map<Integer, String> applied = new HashMap<>();
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT version, checksum FROM " + plan.historyTable() + " WHERE target = ?")) {
            ps.setString(1, plan.target());
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    applied.put(rs.getInt(1), rs.getString(2));
                }
            }
        }
        return applied;
    }

    @Override
    public int currentVersion(Connection c) throws SQLException {
        try (PreparedStatement exists = c.prepareStatement("SELECT to_regclass(?) IS NOT NULL")) {
            exists.setString(1, plan.historyTable());
            try (ResultSet rs = exists.executeQuery()) {
                rs.next();
                if (!rs.getBoolean(1)) {
                    return 0;
                }
            }
        }
        try (PreparedStatement ps = c.prepareStatement(
                "SELECT coalesce(max(version), 0) FROM " + plan.historyTable() + " WHERE target = ?")) {
            ps.setString(1, plan.target());
            try (ResultSet rs = ps.executeQuery()) {
                rs.next();
                return rs.getInt(1);
            }
        }
    }

    @Override
    public String script() {
        StringBuilder sql = new StringBuilder();
        sql.append("-- outbox-relay schema for ").append(plan.target())
                .append(", version ").append(plan.latestVersion()).append('\n')
                .append("-- For a database without this schema yet; use `migrate` to upgrade an existing one.\n")
                .append("BEGIN;\n")
                .append(lockStatement()).append(";\n")
                .append(createSchemaStatement()).append(";\n")
                .append(createHistoryStatement()).append(";\n");
        for (Migration m : plan.migrations()) {
            sql.append("\n-- Migration ").append(m.version()).append(": ").append(m.description()).append('\n')
                    .append(m.sql().strip()).append('\n')
                    .append("INSERT INTO ").append(plan.historyTable())
                    .append(" (target, version, description, checksum) VALUES (")
                    .append(literal(plan.target())).append(", ").append(m.version()).append(", ")
                    .append(literal(m.description())).append(", ").append(literal(m.checksum())).append(");\n");
        }
        return sql.append("COMMIT;\n").toString();
    }

    private String lockStatement() {
        // Keyed on the history table, so every plan sharing it serializes.
        return AdvisoryLocks.migrateLockStatement(plan.historyTable());
    }

    private String createSchemaStatement() {
        return "CREATE SCHEMA IF NOT EXISTS " + OutboxTable.quote(plan.schema());
    }

    private String createHistoryStatement() {
        return "CREATE TABLE IF NOT EXISTS " + plan.historyTable() + " ("
                + "target text NOT NULL, version integer NOT NULL, description text NOT NULL, "
                + "checksum text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now(), "
                + "applied_by text NOT NULL DEFAULT current_user, PRIMARY KEY (target, version))";
    }

    private static String literal(String value) {
        return "'" + value.replace("'", "''") + "'";
    }
}
