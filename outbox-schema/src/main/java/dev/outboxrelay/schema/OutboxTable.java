package dev.outboxrelay.schema;

import java.util.Objects;
import java.util.regex.Pattern;

/**
 * The schema-qualified name of an outbox table, validated once so that every SQL statement built from it is
 * safe to interpolate. Names are always emitted double-quoted, so case is preserved exactly as given.
 */
public final class OutboxTable {

    /** The table applications write to unless told otherwise. */
    public static final OutboxTable DEFAULT = new OutboxTable("public", "outbox", TableLayout.RELAY);

    /**
     * The longest table name the relay accepts: it derives names such as {@code <table>_relay_notify} (13 more
     * characters) from it, and PostgreSQL truncates identifiers past 63, where two derived names could collide.
     */
    public static final int MAX_TABLE_NAME = 50;

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private final String schema;
    private final String table;
    private final TableLayout layout;

    private OutboxTable(String schema, String table, TableLayout layout) {
        this.schema = schema;
        this.table = table;
        this.layout = Objects.requireNonNull(layout, "layout");
    }

    /** The same table read through {@code layout}'s column names. */
    public OutboxTable withLayout(TableLayout layout) {
        return new OutboxTable(schema, table, layout);
    }

    /** Which columns hold the parts of an event; {@link TableLayout#RELAY} unless told otherwise. */
    public TableLayout layout() {
        return layout;
    }

    /**
     * Parses {@code [schema.]table}; the schema defaults to {@code public}.
     *
     * @throws IllegalArgumentException naming the offending value when it is not two plain identifiers
     */
    public static OutboxTable parse(String qualifiedName) {
        Objects.requireNonNull(qualifiedName, "qualifiedName");
        String[] parts = qualifiedName.split("\\.", -1);
        if (parts.length > 2 || parts.length == 0) {
            throw invalid(qualifiedName);
        }
        String schema = parts.length == 2 ? parts[0] : "public";
        String table = parts[parts.length - 1];
        if (!IDENTIFIER.matcher(schema).matches() || !IDENTIFIER.matcher(table).matches()) {
            throw invalid(qualifiedName);
        }
        return new OutboxTable(schema, table, TableLayout.RELAY);
    }

    /** Builds a name in this table's schema, for the relay's companion tables and indexes. */
    public String companion(String suffix) {
        String name = table + "_" + suffix;
        return name.length() > 63 ? name.substring(0, 63) : name;
    }

    private static IllegalArgumentException invalid(String value) {
        return new IllegalArgumentException("'" + value + "' is not a valid table name: expected [schema.]table,"
                + " each starting with a letter or underscore followed by letters, digits or underscores (max 63)");
    }

    public String schema() {
        return schema;
    }

    public String table() {
        return table;
    }

    /** {@code "schema"."table"}, safe to put into SQL. */
    public String quoted() {
        return quote(schema) + "." + quote(table);
    }

    /** A quoted name in this table's schema, for objects the relay owns beside the outbox table. */
    public String quotedInSchema(String name) {
        return quote(schema) + "." + quote(name);
    }

    static String quote(String identifier) {
        return '"' + identifier + '"';
    }

    /** {@code schema.table}, unquoted, as users write it. */
    @Override
    public String toString() {
        return schema + "." + table;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OutboxTable other && schema.equals(other.schema) && table.equals(other.table)
                && layout.equals(other.layout);
    }

    @Override
    public int hashCode() {
        return Objects.hash(schema, table, layout);
    }
}
