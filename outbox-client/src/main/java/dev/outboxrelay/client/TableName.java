package dev.outboxrelay.client;

import java.util.Locale;
import java.util.regex.Pattern;

/** A table name as {@code [schema.]table}, quoted for SQL. No dependency on the relay's schema module. */
record TableName(String schema, String table) {

    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_$]{0,62}");

    static TableName parse(String raw) {
        if (raw == null) {
            throw new IllegalArgumentException("table must not be null");
        }
        String[] parts = raw.trim().split("\\.", -1);
        if (parts.length > 2 || !IDENTIFIER.matcher(parts[parts.length - 1]).matches()
                || (parts.length == 2 && !IDENTIFIER.matcher(parts[0]).matches())) {
            throw new IllegalArgumentException("'" + raw + "' is not a table name: expected [schema.]table, each"
                    + " a letter or underscore followed by letters, digits or underscores");
        }
        return parts.length == 2 ? new TableName(fold(parts[0]), fold(parts[1])) : new TableName("public",
                fold(parts[0]));
    }

    private static String fold(String identifier) {
        return identifier.toLowerCase(Locale.ROOT);
    }

    String quoted() {
        return '"' + schema + "\".\"" + table + '"';
    }

    @Override
    public String toString() {
        return schema + "." + table;
    }
}
