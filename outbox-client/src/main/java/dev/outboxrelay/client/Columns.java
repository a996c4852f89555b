package dev.outboxrelay.client;

import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The outbox table's column names, as the relay's {@code --table-format} and {@code --column} give them: the
 * relay's own, Debezium's outbox columns, or either with some renamed. Immutable.
 *
 * <pre>{@code
 * Outbox outbox = Outbox.forTable("public.outboxevent", Columns.debezium().with("aggregate-id", "order_id"));
 * }</pre>
 */
public final class Columns {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");
    private static final String[] ROLES = {"id", "aggregate-type", "aggregate-id", "event-type", "payload",
        "headers"};

    private final Map<String, String> names;

    private Columns(Map<String, String> names) {
        this.names = Map.copyOf(names);
    }

    /** The relay's table: {@code id, aggregate_type, aggregate_id, event_type, payload, headers}. */
    public static Columns relay() {
        return of("id", "aggregate_type", "aggregate_id", "event_type", "payload", "headers");
    }

    /**
     * Debezium's outbox table: {@code id, aggregatetype, aggregateid, type, payload} and no headers column, so
     * events with headers are refused and no trace context is written.
     */
    public static Columns debezium() {
        return of("id", "aggregatetype", "aggregateid", "type", "payload", null);
    }

    private static Columns of(String... byRole) {
        Map<String, String> m = new LinkedHashMap<>();
        for (int i = 0; i < ROLES.length; i++) {
            if (byRole[i] != null) {
                m.put(ROLES[i], byRole[i]);
            }
        }
        return new Columns(m);
    }

    /**
     * These columns with {@code role} ({@code id}, {@code aggregate-type}, {@code aggregate-id},
     * {@code event-type}, {@code payload}, {@code headers}) in column {@code column}; {@code null} or empty
     * {@code column} for a table without headers.
     *
     * @throws IllegalArgumentException for an unknown role, a name that is not a plain identifier, or a required
     *                                  role left without a column
     */
    public Columns with(String role, String column) {
        String r = Objects.requireNonNull(role, "role").trim().toLowerCase(Locale.ROOT);
        if (!java.util.List.of(ROLES).contains(r)) {
            throw new IllegalArgumentException("unknown column role '" + role + "': use id, aggregate-type,"
                    + " aggregate-id, event-type, payload or headers");
        }
        Map<String, String> m = new LinkedHashMap<>(names);
        if (column == null || column.isEmpty()) {
            if (!r.equals("headers")) {
                throw new IllegalArgumentException("the " + r + " column is required");
            }
            m.remove(r);
        } else if (!IDENTIFIER.matcher(column).matches()) {
            throw new IllegalArgumentException("'" + column + "' is not a plain column name");
        } else {
            m.put(r, column);
        }
        return new Columns(m);
    }

    /** The column of {@code role}, quoted for SQL, or {@code null} (headers only). */
    String quoted(String role) {
        String name = names.get(role);
        return name == null ? null : '"' + name + '"';
    }

    boolean hasHeaders() {
        return names.containsKey("headers");
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Columns other && names.equals(other.names);
    }

    @Override
    public int hashCode() {
        return names.hashCode();
    }

    @Override
    public String toString() {
        return names.toString();
    }
}
