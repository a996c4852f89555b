package dev.outboxrelay.core;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What a source module can tell about its own state from the database alone (the CDC slot, for example), for
 * {@code status} and for the daemon's probes. Called on a connection the caller owns; must be read-only and fast.
 */
@FunctionalInterface
public interface SourceInspector {

    /**
     * One look at the source's state.
     *
     * @param jsonField  the field {@code status --json} shows it under (e.g. {@code slot}), or null for none
     * @param json       that field's JSON value ({@code null} allowed)
     * @param lines      lines {@code status} prints
     * @param problems   why the outbox is unhealthy ({@code status} exits 3), empty when it is not
     * @param notReady   why the daemon is not ready now (readiness probe), or null
     * @param gauges     sampled values of the factory's {@link SourceFactory#gauges()}, by name; NaN when unknown
     */
    record Inspection(String jsonField, String json, List<String> lines, List<String> problems, String notReady,
                      Map<String, Double> gauges) {

        /** Nothing to show. */
        public static final Inspection EMPTY = new Inspection(null, null, List.of(), List.of(), null, Map.of());

        public Inspection {
            lines = List.copyOf(lines);
            problems = List.copyOf(problems);
            gauges = Map.copyOf(Objects.requireNonNull(gauges, "gauges"));
        }
    }

    /** An inspector for a source with nothing of its own to show. */
    static SourceInspector none() {
        return c -> Inspection.EMPTY;
    }

    /** Looks once. */
    Inspection inspect(Connection connection) throws SQLException;
}
