package dev.outboxrelay.cli;

import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.daemon.Json;
import java.io.PrintStream;
import java.sql.Connection;
import java.util.List;
import java.util.UUID;

/**
 * {@code dead-letters list|retry|discard}: inspect dead letters, put them back for the relay, or give up on
 * them with a record of who and when. Retry and discard touch live dead letters only, so both are idempotent.
 */
final class DeadLettersCommand implements Cli.Command {

    /** The three actions, each a subcommand. */
    enum Action { LIST, RETRY, DISCARD }

    private static final ConfigSpec SPEC = ConfigSpec.of(CliOptions.GENERAL, DatabaseOptions.CONNECTION,
            OpsOptions.SELECTION);

    private final Action action;

    private DeadLettersCommand(Action action) {
        this.action = action;
    }

    /** The {@code dead-letters} group: no options of its own, one child per action. */
    static Cli.Command group() {
        List<Cli.Command> children = List.of(new DeadLettersCommand(Action.LIST), new DeadLettersCommand(Action.RETRY),
                new DeadLettersCommand(Action.DISCARD));
        return new Cli.Command() {
            @Override
            public String name() {
                return "dead-letters";
            }

            @Override
            public String description() {
                return "List, retry or discard dead letters (rows that gave up after --max-attempts).";
            }

            @Override
            public ConfigSpec spec() {
                return ConfigSpec.of(CliOptions.GENERAL);
            }

            @Override
            public List<String> examples() {
                return List.of(Cli.NAME + " dead-letters list --db-url jdbc:postgresql://db:5432/app --db-user relay",
                        Cli.NAME + " dead-letters retry --id 6f1c2d3e-0000-4000-8000-000000000001 ...");
            }

            @Override
            public List<Cli.Command> children() {
                return children; // the same instances every time: the CLI finds a child's group by identity
            }

            @Override
            public int execute(RelayConfig config, PrintStream out, PrintStream err) {
                throw new IllegalStateException("a group has no behaviour of its own");
            }
        };
    }

    @Override
    public String name() {
        return action.name().toLowerCase(java.util.Locale.ROOT);
    }

    @Override
    public String description() {
        return switch (action) {
            case LIST -> "List dead letters (ids, keys, attempts, last error; never payloads), oldest first.";
            case RETRY -> "Put dead letters back for the relay: clears dead_lettered_at, resets attempts, keeps"
                    + " last_error. Idempotent.";
            case DISCARD -> "Give up on dead letters: records discarded_at/discarded_by; they are never relayed and"
                    + " no longer count or block their key. Idempotent.";
        };
    }

    @Override
    public ConfigSpec spec() {
        return SPEC;
    }

    @Override
    public List<String> examples() {
        String conn = " --db-url jdbc:postgresql://db:5432/app --db-user relay";
        return switch (action) {
            case LIST -> List.of("RELAY_DB_PASSWORD=... " + Cli.NAME + " dead-letters list" + conn
                    + " --aggregate-type order --since 24h");
            case RETRY -> List.of("RELAY_DB_PASSWORD=... " + Cli.NAME + " dead-letters retry" + conn + " \\",
                    "    --id 6f1c2d3e-0000-4000-8000-000000000001 --id 6f1c2d3e-0000-4000-8000-000000000002");
            case DISCARD -> List.of("RELAY_DB_PASSWORD=... " + Cli.NAME + " dead-letters discard" + conn
                    + " --aggregate-type order --since 2024-05-01T00:00:00Z --operator alice");
        };
    }

    @Override
    public int execute(RelayConfig config, PrintStream out, PrintStream err) throws Exception {
        DeadLetterStore.Selection selection = new DeadLetterStore.Selection(
                config.find(OpsOptions.IDS).orElse(List.of()), config.find(OpsOptions.AGGREGATE_TYPE).orElse(null),
                config.find(OpsOptions.SINCE).orElse(null));
        boolean all = config.get(OpsOptions.ALL);
        boolean narrowed = !selection.ids().isEmpty() || selection.aggregateType() != null
                || selection.since() != null;
        String usage = "dead-letters " + name();
        if (all && narrowed) {
            err.println("error: --all cannot be combined with --id, --aggregate-type or --since (see '" + Cli.NAME
                    + " " + usage + " --help')");
            return Main.USAGE;
        }
        if (action != Action.LIST && !all && !narrowed) {
            err.println("error: " + name() + " needs a selection: --id ID (repeatable), --aggregate-type TYPE,"
                    + " --since TIME, or --all (see '" + Cli.NAME + " " + usage + " --help')");
            return Main.USAGE;
        }
        DeadLetterStore store = new DeadLetterStore(DatabaseOptions.table(config));
        try (Connection c = ConnectionFactory.fromConfig(config).open()) {
            switch (action) {
                case LIST -> print(store.list(c, selection, config.get(OpsOptions.LIMIT)),
                        config.get(OpsOptions.JSON), out);
                case RETRY -> report("retried", store.retry(c, selection), selection, out,
                        "; a running relay of either mode publishes them within seconds, in key order");
                case DISCARD -> report("discarded", store.discard(c, selection,
                        config.find(OpsOptions.OPERATOR).orElse(System.getProperty("user.name", "unknown"))),
                        selection, out, "");
            }
        }
        return Main.OK;
    }

    private static void report(String verb, List<UUID> changed, DeadLetterStore.Selection s, PrintStream out,
                               String note) {
        if (changed.isEmpty()) {
            out.println("no dead letters matched; nothing " + verb + " (already " + verb + ", or never dead-lettered)");
            return;
        }
        out.println(verb + " " + changed.size() + " dead letter(s)" + note);
        changed.forEach(id -> out.println("  " + id));
        long unmatched = s.ids().stream().filter(id -> !changed.contains(id)).distinct().count();
        if (unmatched > 0) {
            out.println(unmatched + " given id(s) were not dead letters (already handled, or unknown)");
        }
    }

    private static void print(List<DeadLetterStore.DeadLetter> rows, boolean json, PrintStream out) {
        if (json) {
            StringBuilder s = new StringBuilder("[");
            for (int i = 0; i < rows.size(); i++) {
                DeadLetterStore.DeadLetter d = rows.get(i);
                s.append(i == 0 ? "" : ",").append("{\"id\":").append(Json.quote(d.id().toString()))
                        .append(",\"aggregate_type\":").append(Json.quote(d.aggregateType()))
                        .append(",\"aggregate_id\":").append(Json.quote(d.aggregateId()))
                        .append(",\"event_type\":").append(Json.quote(d.eventType()))
                        .append(",\"attempts\":").append(d.attempts())
                        .append(",\"created_at\":").append(Json.quote(String.valueOf(d.createdAt())))
                        .append(",\"dead_lettered_at\":").append(Json.quote(String.valueOf(d.deadLetteredAt())))
                        .append(",\"last_error\":").append(Json.quote(d.lastError())).append('}');
            }
            out.println(s.append(']'));
            return;
        }
        if (rows.isEmpty()) {
            out.println("no dead letters");
            return;
        }
        for (DeadLetterStore.DeadLetter d : rows) {
            out.println(d.id() + "  " + d.aggregateType() + "/" + d.aggregateId() + "  " + d.eventType()
                    + "  attempts=" + d.attempts() + "  dead since " + d.deadLetteredAt());
            out.println("    last error: " + d.lastError());
        }
        out.println(rows.size() + " dead letter(s)");
    }
}
