package dev.outboxrelay.inbox;

import dev.outboxrelay.schema.Migration;
import dev.outboxrelay.schema.MigrationPlan;
import dev.outboxrelay.schema.Migrator;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import java.util.List;
import java.util.Map;

/** The inbox table's migrations, rendered for a table name. */
final class InboxSchema {

    private static final List<String> STEPS = List.of("V1__create_inbox_table.sql");

    private InboxSchema() {
    }

    static MigrationPlan plan(OutboxTable table) {
        Map<String, String> values = Map.of("inbox", table.quoted(), "prefix", table.table());
        List<Migration> steps = MigrationPlan.load(InboxSchema.class, "sql", STEPS, values);
        // Same history table as the outbox: one place for a DBA to look, and the same advisory lock.
        return new MigrationPlan("inbox:" + table, table.schema(), OutboxSchema.HISTORY_TABLE, steps);
    }

    static Migrator migrator(OutboxTable table) {
        return Migrator.forPlan(plan(table));
    }
}
