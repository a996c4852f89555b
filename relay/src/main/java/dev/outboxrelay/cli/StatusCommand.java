package dev.outboxrelay.cli;

import dev.outboxrelay.cdc.CdcOptions;
import dev.outboxrelay.cdc.CdcSource;
import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.InstanceOptions;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.daemon.Json;
import dev.outboxrelay.daemon.OutboxStats;
import dev.outboxrelay.schema.OutboxTable;
import java.io.PrintStream;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code status}: what an operator (or a cron job) needs to know from the database alone: backlog, oldest
 * unsent age, dead letters, the CDC slot, and which instance is active. Exit 3 when unhealthy: live dead
 * letters, an unsent row older than {@code --max-age}, an invalidated slot, or a failover slot held back by an
 * inactive standby.
 */
final class StatusCommand implements Cli.Command {

    /** Exit code of an unhealthy outbox; distinct from 1 (could not check at all). */
    static final int UNHEALTHY = 3;

    private static final ConfigSpec SPEC = ConfigSpec.of(CliOptions.GENERAL, DatabaseOptions.CONNECTION,
            OpsOptions.STATUS);

    /**
     * The CDC slot as seen in pg_replication_slots; {@code invalidationReason} is null and {@code failover} false
     * before PostgreSQL 17. {@code heldBackBy}: for a failover slot, the standby slots named in
     * {@code synchronized_standby_slots} that are not active (PostgreSQL streams nothing to the slot meanwhile),
     * comma-separated; null when none.
     */
    record Slot(boolean active, String walStatus, Long retainedWalBytes, String invalidationReason,
                boolean failover, String heldBackBy) {
    }

    /** The session holding the poll or CDC lock. */
    record Holder(String lock, String applicationName, int backendPid, String clientAddress, String since) {
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
        return SPEC;
    }

    @Override
    public List<String> examples() {
        return List.of("RELAY_DB_PASSWORD=... " + Cli.NAME + " status --db-url jdbc:postgresql://db:5432/app"
                + " --db-user relay --max-age 10m", Cli.NAME + " status --config relay.properties --json | jq .backlog");
    }

    @Override
    public int execute(RelayConfig config, PrintStream out, PrintStream err) throws SQLException {
        OutboxTable table = config.get(DatabaseOptions.TABLE);
        String slotName = config.get(CdcOptions.SLOT_NAME);
        Duration maxAge = config.get(OpsOptions.MAX_AGE);
        OutboxStats stats;
        Slot slot;
        Holder holder;
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
            slot = slot(c, slotName);
            holder = holder(c, table, config.get(InstanceOptions.RELAY_NAME));
        }
        List<String> problems = new ArrayList<>();
        if (stats.deadLetters() > 0) {
            problems.add(stats.deadLetters() + " dead letter(s): see dead-letters list");
        }
        if (stats.oldestUnsentAgeSeconds() > maxAge.toSeconds()) {
            problems.add(String.format("oldest unsent row is %.0f s old (--max-age %d s)",
                    stats.oldestUnsentAgeSeconds(), maxAge.toSeconds()));
        }
        if (slot != null && "lost".equals(slot.walStatus())) {
            problems.add("replication slot '" + slotName + "' was invalidated ("
                    + CdcSource.slotInvalidationCause(slot.invalidationReason())
                    + "): the next CDC start recreates it and rescans the table");
        }
        if (slot != null && slot.heldBackBy() != null) {
            problems.add("replication slot '" + slotName + "' is held back: standby slot(s) " + slot.heldBackBy()
                    + " in synchronized_standby_slots are not active, and PostgreSQL streams no change to a failover"
                    + " slot until they are (start the standby, or change synchronized_standby_slots)");
        }
        if (config.get(OpsOptions.JSON)) {
            out.println(json(table, stats, slotName, slot, holder, problems));
        } else {
            out.printf("outbox %s: backlog %d row(s), oldest unsent %.1f s, dead letters %d%n", table,
                    stats.backlog(), stats.oldestUnsentAgeSeconds(), stats.deadLetters());
            out.println(slot == null ? "slot " + slotName + ": none" : "slot " + slotName + ": "
                    + (slot.active() ? "active" : "inactive") + (slot.failover() ? ", failover" : "")
                    + (slot.heldBackBy() == null ? "" : ", held back by inactive standby slot(s) " + slot.heldBackBy())
                    + ", wal_status " + slot.walStatus()
                    + (slot.invalidationReason() == null ? "" : ", invalidation_reason " + slot.invalidationReason())
                    + ", retained WAL " + slot.retainedWalBytes() + " bytes");
            out.println(holder == null ? "active instance: none (no session holds the poll or CDC lock)"
                    : "active instance: " + holder.applicationName() + " (" + holder.lock() + " lock, backend pid "
                    + holder.backendPid() + ", client " + holder.clientAddress() + ", since " + holder.since() + ")");
            out.println(problems.isEmpty() ? "status: healthy" : "status: unhealthy: " + String.join("; ", problems));
        }
        return problems.isEmpty() ? Main.OK : UNHEALTHY;
    }

    private static Slot slot(Connection c, String name) throws SQLException {
        // invalidation_reason and failover exist since PostgreSQL 17; through jsonb the query runs on every version.
        try (PreparedStatement ps = c.prepareStatement("SELECT active, wal_status,"
                + " pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint,"
                + " to_jsonb(s) ->> 'invalidation_reason', coalesce((to_jsonb(s) ->> 'failover')::boolean, false)"
                + " FROM pg_replication_slots s WHERE slot_name = ?")) {
            ps.setString(1, name);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                long wal = rs.getLong(3);
                Long retained = rs.wasNull() ? null : wal;
                return new Slot(rs.getBoolean(1), rs.getString(2), retained, rs.getString(4), rs.getBoolean(5),
                        CdcSource.heldBackBy(c, name));
            }
        }
    }

    private static Holder holder(Connection c, OutboxTable table, String relayName) throws SQLException {
        String sql = "SELECT CASE WHEN l.classid::bigint = (hashtext('outbox-relay-poll')::bigint & 4294967295)"
                + " THEN 'poll' ELSE 'cdc' END, a.application_name, l.pid, CASE WHEN a.backend_start IS NULL"
                + " THEN 'hidden (needs pg_read_all_stats)' ELSE coalesce(host(a.client_addr), 'local socket') END,"
                + " coalesce(a.backend_start::text, 'hidden') FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid"
                + " WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2"
                + " AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())"
                + " AND ((l.classid::bigint = (hashtext('outbox-relay-poll')::bigint & 4294967295)"
                + " AND l.objid::bigint = (hashtext(?)::bigint & 4294967295))"
                + " OR (l.classid::bigint = (hashtext('outbox-relay-cdc')::bigint & 4294967295)"
                + " AND l.objid::bigint = (hashtext(?)::bigint & 4294967295))) ORDER BY a.backend_start LIMIT 1";
        try (PreparedStatement ps = c.prepareStatement(sql)) {
            ps.setString(1, table.toString());
            ps.setString(2, relayName);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new Holder(rs.getString(1), rs.getString(2), rs.getInt(3), rs.getString(4),
                        rs.getString(5)) : null;
            }
        }
    }

    private static String json(OutboxTable table, OutboxStats stats, String slotName, Slot slot, Holder holder,
                               List<String> problems) {
        StringBuilder s = new StringBuilder("{\"table\":").append(Json.quote(table.toString()))
                .append(",\"healthy\":").append(problems.isEmpty())
                .append(",\"backlog\":").append(stats.backlog())
                .append(",\"oldest_unsent_age_seconds\":").append(stats.oldestUnsentAgeSeconds())
                .append(",\"dead_letters\":").append(stats.deadLetters())
                .append(",\"slot\":");
        if (slot == null) {
            s.append("null");
        } else {
            s.append("{\"name\":").append(Json.quote(slotName)).append(",\"active\":").append(slot.active())
                    .append(",\"failover\":").append(slot.failover())
                    .append(",\"held_back_by\":").append(slot.heldBackBy() == null ? "null"
                            : Json.quote(slot.heldBackBy()))
                    .append(",\"wal_status\":").append(Json.quote(slot.walStatus()))
                    .append(",\"retained_wal_bytes\":").append(slot.retainedWalBytes())
                    .append(",\"invalidation_reason\":").append(slot.invalidationReason() == null ? "null"
                            : Json.quote(slot.invalidationReason())).append('}');
        }
        s.append(",\"active_instance\":");
        if (holder == null) {
            s.append("null");
        } else {
            s.append("{\"lock\":").append(Json.quote(holder.lock()))
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
