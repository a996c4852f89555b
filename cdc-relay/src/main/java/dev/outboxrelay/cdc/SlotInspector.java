package dev.outboxrelay.cdc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outboxrelay.core.SourceFactory;
import dev.outboxrelay.core.SourceInspector;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The CDC slot as {@code status} and the daemon's probes show it: active or not, failover, held back by an inactive
 * standby slot, WAL status and invalidation, retained WAL (a gauge); with Debezium's streaming statistics as the
 * other gauges ({@link EngineStatistics}).
 */
final class SlotInspector implements SourceInspector {

    static final SourceFactory.Gauge RETAINED_WAL = new SourceFactory.Gauge("outbox.relay.cdc.retained.wal", "bytes",
            "WAL the replication slot keeps from being removed (sampled); NaN without slot");
    private static final ObjectMapper JSON = new ObjectMapper();

    private final String slotName;
    private final EngineStatistics engine;

    SlotInspector(String slotName, String relayName) {
        this.slotName = slotName;
        this.engine = new EngineStatistics(relayName);
    }

    @Override
    public Inspection inspect(Connection c) throws SQLException {
        // invalidation_reason and failover exist since PostgreSQL 17; through jsonb the query runs on every version.
        try (PreparedStatement ps = c.prepareStatement("SELECT active, wal_status,"
                + " pg_wal_lsn_diff(pg_current_wal_lsn(), confirmed_flush_lsn)::bigint,"
                + " to_jsonb(s) ->> 'invalidation_reason', coalesce((to_jsonb(s) ->> 'failover')::boolean, false)"
                + " FROM pg_replication_slots s WHERE slot_name = ?")) {
            ps.setString(1, slotName);
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return new Inspection("slot", null, List.of("slot " + slotName + ": none"), List.of(), null,
                            gauges(Double.NaN));
                }
                boolean active = rs.getBoolean(1);
                String walStatus = rs.getString(2);
                long wal = rs.getLong(3);
                Long retained = rs.wasNull() ? null : wal;
                String invalidation = rs.getString(4);
                boolean failover = rs.getBoolean(5);
                return inspection(active, walStatus, retained, invalidation, failover, FailoverSlots.heldBackBy(c,
                        slotName));
            }
        }
    }

    private Inspection inspection(boolean active, String walStatus, Long retained, String invalidation,
                                  boolean failover, String heldBackBy) {
        Map<String, Object> slot = new LinkedHashMap<>();
        slot.put("name", slotName);
        slot.put("active", active);
        slot.put("failover", failover);
        slot.put("held_back_by", heldBackBy);
        slot.put("wal_status", walStatus);
        slot.put("retained_wal_bytes", retained);
        slot.put("invalidation_reason", invalidation);
        String line = "slot " + slotName + ": " + (active ? "active" : "inactive") + (failover ? ", failover" : "")
                + (heldBackBy == null ? "" : ", held back by inactive standby slot(s) " + heldBackBy)
                + ", wal_status " + walStatus
                + (invalidation == null ? "" : ", invalidation_reason " + invalidation)
                + ", retained WAL " + retained + " bytes";
        List<String> problems = new ArrayList<>();
        if ("lost".equals(walStatus)) {
            problems.add("replication slot '" + slotName + "' was invalidated ("
                    + SlotManager.invalidationCause(invalidation)
                    + "): the next CDC start recreates it and rescans the table");
        }
        String notReady = null;
        if (heldBackBy != null) {
            problems.add("replication slot '" + slotName + "' is held back: standby slot(s) " + heldBackBy
                    + " in synchronized_standby_slots are not active, and PostgreSQL streams no change to a failover"
                    + " slot until they are (start the standby, or change synchronized_standby_slots)");
            // Reachable, but PostgreSQL streams nothing to the relay: CDC stands still until this changes.
            notReady = "replication slot '" + slotName + "' is held back: standby slot(s) " + heldBackBy
                    + " in synchronized_standby_slots are not active";
        }
        try {
            return new Inspection("slot", JSON.writeValueAsString(slot), List.of(line), problems, notReady,
                    gauges(retained == null ? Double.NaN : retained.doubleValue()));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write the slot as JSON", e);
        }
    }

    private Map<String, Double> gauges(double retainedWal) {
        Map<String, Double> values = new LinkedHashMap<>(engine.sample());
        values.put(RETAINED_WAL.name(), retainedWal);
        return values;
    }
}
