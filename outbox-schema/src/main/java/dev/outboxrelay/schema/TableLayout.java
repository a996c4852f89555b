package dev.outboxrelay.schema;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Which of a table's columns hold each part of an event: the relay's own names, Debezium's outbox columns, or a
 * mapping of either. The relay's bookkeeping columns ({@code seq}, {@code sent_at}, {@code attempts}, ...) keep
 * their names on every table; {@code migrate --adopt} adds them to an existing one. Statements select mapped
 * columns under the relay's names ({@code "aggregateid" AS aggregate_id}), so only the SQL knows the mapping.
 */
public final class TableLayout {

    /** A part of an event, named as in the relay's own table. */
    public enum Column {
        ID("id", true),
        AGGREGATE_TYPE("aggregate_type", true),
        AGGREGATE_ID("aggregate_id", true),
        EVENT_TYPE("event_type", true),
        PAYLOAD("payload", true),
        /** A jsonb object of extra Kafka headers; a table may have none. */
        HEADERS("headers", false),
        /** When the row was written; {@code migrate --adopt} adds {@code created_at} where the table has none. */
        CREATED_AT("created_at", true);

        private final String relayName;
        private final boolean required;

        Column(String relayName, boolean required) {
            this.relayName = relayName;
            this.required = required;
        }

        /** The column's name in the relay's table, also its name in every statement's results. */
        public String relayName() {
            return relayName;
        }

        /** How {@code --column} names it: {@code aggregate-id}. */
        public String optionName() {
            return name().toLowerCase(Locale.ROOT).replace('_', '-');
        }

        static Column byOptionName(String name) {
            for (Column c : values()) {
                if (c.optionName().equals(name.trim().toLowerCase(Locale.ROOT))) {
                    return c;
                }
            }
            throw new IllegalArgumentException("unknown column role '" + name.trim() + "': use id, aggregate-type,"
                    + " aggregate-id, event-type, payload, headers or created-at");
        }
    }

    /** The relay's own table. */
    public static final TableLayout RELAY = new TableLayout("relay", names(
            "id", "aggregate_type", "aggregate_id", "event_type", "payload", "headers", "created_at"));
    /**
     * Debezium's default outbox columns ({@code id, aggregatetype, aggregateid, type, payload}), without headers;
     * {@code created_at} is what {@code migrate --adopt} adds.
     */
    public static final TableLayout DEBEZIUM = new TableLayout("debezium", names(
            "id", "aggregatetype", "aggregateid", "type", "payload", null, "created_at"));

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    /** The bookkeeping columns: never an event's column. */
    private static final java.util.Set<String> BOOKKEEPING = java.util.Set.of("seq", "sent_at", "attempts",
            "last_error", "dead_lettered_at", "discarded_at", "discarded_by", "retry_at");

    private final String preset;
    private final Map<Column, String> names;
    private final java.util.List<String> extras;

    private TableLayout(String preset, Map<Column, String> names, java.util.List<String> extras) {
        this.preset = preset;
        this.names = Collections.unmodifiableMap(new EnumMap<>(names));
        this.extras = java.util.List.copyOf(extras);
    }

    private TableLayout(String preset, Map<Column, String> names) {
        this(preset, names, java.util.List.of());
    }

    /**
     * This layout also reading {@code columns}, the table's other columns that routing or the message format name
     * (a topic placeholder, an additional field). Names of the layout's roles are left out: they are read anyway.
     *
     * @throws IllegalArgumentException naming a column that is not a plain identifier or is the relay's bookkeeping
     */
    public TableLayout withExtras(java.util.Collection<String> columns) {
        java.util.LinkedHashSet<String> all = new java.util.LinkedHashSet<>(extras);
        for (String c : columns) {
            if (!IDENTIFIER.matcher(c).matches()) {
                throw new IllegalArgumentException("'" + c + "' is not a plain column name (letters, digits,"
                        + " underscores)");
            }
            if (BOOKKEEPING.contains(c)) {
                throw new IllegalArgumentException("column '" + c + "' is the relay's bookkeeping, not the event's");
            }
            if (!names.containsValue(c)) {
                all.add(c);
            }
        }
        return new TableLayout(preset, names, new java.util.ArrayList<>(all));
    }

    /** The other columns read with each event, in order; see {@link #withExtras}. */
    public java.util.List<String> extras() {
        return extras;
    }

    /**
     * The columns a change stream must carry for each event, in role order, then the extras: every role the table
     * has except {@code created-at}, which CDC does not read (the commit time stands in for it).
     */
    public java.util.List<String> streamedColumns() {
        java.util.List<String> out = new java.util.ArrayList<>();
        for (Column c : Column.values()) {
            if (c != Column.CREATED_AT && names.containsKey(c)) {
                out.add(names.get(c));
            }
        }
        out.addAll(extras);
        return java.util.List.copyOf(out);
    }

    /** The role whose column is {@code column}, or {@code null} for another column. */
    public Column roleOf(String column) {
        for (Map.Entry<Column, String> e : names.entrySet()) {
            if (e.getValue().equals(column)) {
                return e.getKey();
            }
        }
        return null;
    }

    private static Map<Column, String> names(String... byOrdinal) {
        Map<Column, String> m = new EnumMap<>(Column.class);
        for (Column c : Column.values()) {
            if (byOrdinal[c.ordinal()] != null) {
                m.put(c, byOrdinal[c.ordinal()]);
            }
        }
        return m;
    }

    /**
     * This layout with {@code mapping} applied: {@code role=column,...} such as {@code aggregate-id=order_id};
     * {@code headers=} (empty) for a table without a headers column.
     *
     * @throws IllegalArgumentException naming the entry that is not a role, not a plain identifier, or empties a
     *                                  required role
     */
    public TableLayout with(String mapping) {
        Map<Column, String> m = new EnumMap<>(Column.class);
        m.putAll(names);
        for (String entry : mapping.split(",")) {
            if (entry.isBlank()) {
                continue;
            }
            int eq = entry.indexOf('=');
            if (eq < 0) {
                throw new IllegalArgumentException("'" + entry.trim() + "' is not role=column");
            }
            Column role = Column.byOptionName(entry.substring(0, eq));
            String column = entry.substring(eq + 1).trim();
            if (column.isEmpty()) {
                if (role.required) {
                    throw new IllegalArgumentException("'" + entry.trim() + "': the " + role.optionName()
                            + " column is required");
                }
                m.remove(role);
            } else if (!IDENTIFIER.matcher(column).matches()) {
                throw new IllegalArgumentException("'" + entry.trim() + "': '" + column + "' is not a plain column"
                        + " name (letters, digits, underscores)");
            } else {
                m.put(role, column);
            }
        }
        long distinct = m.values().stream().distinct().count();
        if (distinct != m.size()) {
            throw new IllegalArgumentException("'" + mapping + "' maps two roles to one column");
        }
        return new TableLayout(preset, m, extras);
    }

    /** {@code relay} or {@code debezium}: the layout this one started from. */
    public String preset() {
        return preset;
    }

    /** The table's name for {@code role}, or {@code null} when the table has no such column (headers only). */
    public String name(Column role) {
        return names.get(role);
    }

    /** Whether this is the relay's own layout, unmapped (extra columns aside). */
    public boolean isRelay() {
        return names.equals(RELAY.names);
    }

    /** {@code column} quoted, under {@code alias} (may be empty). */
    static String refColumn(String alias, String column) {
        return (alias.isEmpty() ? "" : alias + ".") + OutboxTable.quote(column);
    }

    /** {@code role} as a quoted column reference under {@code alias} (may be empty), or SQL NULL if absent. */
    String ref(String alias, Column role) {
        String name = names.get(role);
        if (name == null) {
            return "NULL";
        }
        return (alias.isEmpty() ? "" : alias + ".") + OutboxTable.quote(name);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TableLayout other && names.equals(other.names) && extras.equals(other.extras);
    }

    @Override
    public int hashCode() {
        return names.hashCode() * 31 + extras.hashCode();
    }

    /** {@code aggregate-id=aggregateid,...}: what a user would pass to reproduce it. */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        for (Column c : Column.values()) {
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(c.optionName()).append('=').append(names.getOrDefault(c, ""));
        }
        return extras.isEmpty() ? b.toString() : b + " + " + extras;
    }
}
