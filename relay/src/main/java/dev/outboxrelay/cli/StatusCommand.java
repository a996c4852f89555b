package dev.outboxrelay.cli;

import dev.outboxrelay.core.SourceFactory;
import dev.outboxrelay.core.SourceInspector;
import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.daemon.Json;
import dev.outboxrelay.daemon.OutboxStats;
import dev.outboxrelay.schema.AdvisoryLocks;
import dev.outboxrelay.schema.OutboxTable;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * {@code status}: what an operator (or a cron job) needs to know from the database alone: backlog, oldest
 * unsent age, dead letters, what each source module shows of its own state (the CDC slot), and which instance
 * holds the table's relay lock. Exit 3 when unhealthy: live dead letters, an unsent row older than
 * {@code --max-age}, or a problem a source reports (an invalidated slot, a failover slot held back by an inactive
 * standby).
 */
final class StatusCommand implements Cli.Command {

    /** Exit code of an unhealthy outbox; distinct from 1 (could not check at all). */
    static final int UNHEALTHY = 3;

    private final List<SourceFactory> factories;
    private final ConfigSpec spec;

    StatusCommand(Map<String, SourceFactory> factories) {
        this.factories = factories.values().stream().sorted(Comparator.comparing(SourceFactory::mode)).toList();
        OptionSet.Builder sources = OptionSet.builder("Status of the sources");
        this.factories.forEach(f -> f.statusOptions().forEach(sources::add));
        this.spec = ConfigSpec.of(CliOptions.GENERAL, DatabaseOptions.CONNECTION, OpsOptions.STATUS, sources.build());
    }

    @Override
    public String name() {
        return "status";
    }

    @Override
    public String description() {
        return "Show backlog, oldest unsent age, dead letters, the CDC slot and the active instance;"
                + " exit 3 when unhealthy.";
    }

    @Override
    public ConfigSpec spec() {
        return spec;
    }

    @Override
    public List<String> examples() {
        return List.of("RELAY_DB_PASSWORD=... " + Cli.NAME + " status --db-url jdbc:postgresql://db:5432/app"
                + " --db-user relay --max-age 10m", Cli.NAME + " status --config relay.properties --json | jq .backlog");
    }

    @Override
    public int execute(RelayConfig config, PrintStream out, PrintStream err) throws SQLException {
        OutboxTable table = DatabaseOptions.table(config);
        Duration maxAge = config.get(OpsOptions.MAX_AGE);
        OutboxStats stats;
        List<SourceInspector.Inspection> sources = new ArrayList<>();
        AdvisoryLocks.Holder holder;
        try (Connection c = ConnectionFactory.fromConfig(config).open()) {
            try {
                stats = OutboxStats.sample(c, table);
            } catch (SQLException e) {
                if (OutboxStats.schemaOutdated(e)) {
                    throw new SQLException("the outbox table " + table + " is missing or not at the current schema"
                            + " version: run migrate (" + e.getMessage() + ")", e);
                }
                throw e;
            }
            for (SourceFactory f : factories) {
                sources.add(f.inspector(config).inspect(c));
            }
            holder = AdvisoryLocks.relayLockHolder(c, table);
        }
        List<String> problems = new ArrayList<>();
        if (stats.deadLetters() > 0) {
            problems.add(stats.deadLetters() + " dead letter(s): see dead-letters list");
        }
        if (stats.oldestUnsentAgeSeconds() > maxAge.toSeconds()) {
            problems.add(String.format("oldest unsent row is %.0f s old (--max-age %d s)",
                    stats.oldestUnsentAgeSeconds(), maxAge.toSeconds()));
        }
        sources.forEach(i -> problems.addAll(i.problems()));
        if (config.get(OpsOptions.JSON)) {
            out.println(json(table, stats, sources, holder, problems));
        } else {
            out.printf("outbox %s: backlog %d row(s), oldest unsent %.1f s, dead letters %d%n", table,
                    stats.backlog(), stats.oldestUnsentAgeSeconds(), stats.deadLetters());
            sources.forEach(i -> i.lines().forEach(out::println));
            out.println(holder == null ? "active instance: none (no session holds the relay lock of " + table + ")"
                    : "active instance: " + holder.applicationName() + " (" + holder.mode() + " lock, backend pid "
                    + holder.backendPid() + ", client " + holder.clientAddress() + ", since " + holder.since() + ")");
            out.println(problems.isEmpty() ? "status: healthy" : "status: unhealthy: " + String.join("; ", problems));
        }
        return problems.isEmpty() ? Main.OK : UNHEALTHY;
    }

    private static String json(OutboxTable table, OutboxStats stats, List<SourceInspector.Inspection> sources,
                               AdvisoryLocks.Holder holder, List<String> problems) {
        StringBuilder s = new StringBuilder("{\"table\":").append(Json.quote(table.toString()))
                .append(",\"healthy\":").append(problems.isEmpty())
                .append(",\"backlog\":").append(stats.backlog())
                .append(",\"oldest_unsent_age_seconds\":").append(stats.oldestUnsentAgeSeconds())
                .append(",\"dead_letters\":").append(stats.deadLetters());
        for (SourceInspector.Inspection i : sources) {
            if (i.jsonField() != null) {
                s.append(',').append(Json.quote(i.jsonField())).append(':').append(i.json() == null ? "null" : i.json());
            }
        }
        s.append(",\"active_instance\":");
        if (holder == null) {
            s.append("null");
        } else {
            s.append("{\"lock\":").append(Json.quote(holder.mode()))
                    .append(",\"application_name\":").append(Json.quote(holder.applicationName()))
                    .append(",\"backend_pid\":").append(holder.backendPid())
                    .append(",\"client\":").append(Json.quote(holder.clientAddress()))
                    .append(",\"since\":").append(Json.quote(holder.since())).append('}');
        }
        s.append(",\"problems\":[");
        for (int i = 0; i < problems.size(); i++) {
            s.append(i == 0 ? "" : ",").append(Json.quote(problems.get(i)));
        }
        return s.append("]}").toString();
    }
}
