package dev.outboxrelay.schema;

import java.util.List;

/**
 * What one {@link Migrator#migrate} call did.
 *
 * @param versionBefore the version found in the database
 * @param versionAfter  the version the database is at now
 * @param applied       the steps this call applied, empty when the database was already current
 */
public record MigrationResult(int versionBefore, int versionAfter, List<Migration> applied) {

    public MigrationResult {
        applied = List.copyOf(applied);
    }

    /** True when the call changed nothing. */
    public boolean alreadyCurrent() {
        return applied.isEmpty();
    }
}
