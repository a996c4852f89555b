package dev.outboxrelay.schema;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * Applies a {@link MigrationPlan} to a database: each step once, in order, recorded in a history table.
 *
 * <p>Guarantees: all pending steps run in one transaction under a transaction-scoped advisory lock keyed on
 * the target, so two {@code migrate} runs racing each other both succeed and the steps are applied once; a
 * database that is already current is left untouched; a step whose recorded checksum differs from the
 * relay's own, or a database newer than the relay, stops with an error instead of being guessed at.
 */
public interface Migrator {

    /** A migrator for the given plan. */
    static Migrator forPlan(MigrationPlan plan) {
        return new JdbcMigrator(plan);
    }

    /**
     * Brings the database to the plan's latest version. The connection's auto-commit mode is restored
     * afterwards; the connection is not closed.
     *
     * @throws MigrationException when the database cannot be brought to the plan's version
     * @throws SQLException       on database errors
     */
    MigrationResult migrate(Connection connection) throws SQLException;

    /** The version recorded in the database, 0 when nothing was applied. Takes no lock. */
    int currentVersion(Connection connection) throws SQLException;

    /**
     * The complete SQL a DBA can run by hand (in psql) to reach the same state as {@link #migrate}, history
     * rows included. Needs no database.
     */
    String script();
}
