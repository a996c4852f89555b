package dev.outboxrelay.cli;

import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;

/** A fresh database on the shared test server with the relay's default table migrated: what most jar tests need. */
public final class MigratedDatabases {

    private MigratedDatabases() {
    }

    /** A new database named after {@code name}, with {@code public.outbox} and its publication. */
    public static TestDatabase create(String name) throws SQLException {
        TestDatabase database = TestPostgres.shared().createDatabase(name);
        try (Connection c = database.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        return database;
    }
}
