package dev.outboxrelay.cli;

import dev.outboxrelay.core.config.ConfigSources;
import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.schema.Migration;
import dev.outboxrelay.schema.MigrationResult;
import dev.outboxrelay.schema.Migrator;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Set;

/** {@code migrate}: creates or upgrades the outbox table and its publication; {@code --print} shows the SQL. */
final class MigrateCommand implements Cli.Command {

    private static final ConfigSpec SPEC = ConfigSpec.of(CliOptions.GENERAL, DatabaseOptions.CONNECTION,
            CliOptions.MIGRATE);

    @Override
    public String name() {
        return "migrate";
    }

    @Override
    public String description() {
        return "Create or upgrade the outbox table and its publication, or adopt an existing one (--adopt); safe to"
                + " run repeatedly and concurrently.";
    }

    @Override
    public ConfigSpec spec() {
        return SPEC;
    }

    @Override
    public List<String> examples() {
        return List.of(
                "RELAY_DB_PASSWORD=... " + Cli.NAME + " migrate \\",
                "    --db-url jdbc:postgresql://db:5432/app --db-user app_owner",
                Cli.NAME + " migrate --print --table orders.outbox > outbox.sql",
                Cli.NAME + " migrate --adopt --print --table-format debezium --table public.outboxevent > adopt.sql");
    }

    @Override
    public RelayConfig resolve(ConfigSources sources, Set<String> tolerated) {
        // --print connects to nothing, so the connection options are optional then.
        RelayConfig relaxed = SPEC.tolerating(tolerated).withoutRequired().resolve(sources);
        if (relaxed.get(CliOptions.PRINT)) {
            return relaxed;
        }
        return SPEC.tolerating(tolerated).resolve(sources);
    }

    @Override
    public int execute(RelayConfig config, PrintStream out, PrintStream err) throws SQLException {
        OutboxTable table = DatabaseOptions.table(config);
        boolean adopt = config.get(CliOptions.ADOPT);
        Migrator migrator = Migrator.forPlan(adopt
                ? OutboxSchema.adoptionPlan(table, config.get(DatabaseOptions.PUBLICATION))
                : OutboxSchema.plan(table, config.get(DatabaseOptions.PUBLICATION)));
        if (config.get(CliOptions.PRINT)) {
            out.print(migrator.script());
            return Main.OK;
        }
        ConnectionFactory db = ConnectionFactory.fromConfig(config);
        MigrationResult result;
        try (Connection c = db.open()) {
            result = migrator.migrate(c);
        }
        if (result.alreadyCurrent()) {
            out.println(table + " is already at version " + result.versionAfter() + "; nothing to apply");
        } else {
            for (Migration m : result.applied()) {
                out.println("applied " + (adopt ? "adoption " : "") + "version " + m.version() + " ("
                        + m.description() + ") to " + table);
            }
            out.println(table + " is now at version " + result.versionAfter());
        }
        return Main.OK;
    }
}
