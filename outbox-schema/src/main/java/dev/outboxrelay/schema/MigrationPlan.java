package dev.outboxrelay.schema;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The ordered migrations for one target (for example the outbox table {@code public.outbox}) together with
 * where their history is recorded. Plans are immutable; the {@link Migrator} applies them.
 */
public final class MigrationPlan {

    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([a-z]+)}");
    private static final Pattern RESOURCE_NAME = Pattern.compile("V(\\d+)__([a-z0-9_]+)\\.sql");

    private final String target;
    private final String schema;
    private final String historyTable;
    private final List<Migration> migrations;

    /**
     * @param target       what the plan migrates, recorded with each history row (e.g. {@code outbox:public.outbox})
     * @param schema       the database schema the target and its version table live in; created when missing
     * @param historyTable unqualified name of the version table in that schema
     * @param migrations   steps in strictly increasing version order
     */
    public MigrationPlan(String target, String schema, String historyTable, List<Migration> migrations) {
        this.target = Objects.requireNonNull(target, "target");
        this.schema = Objects.requireNonNull(schema, "schema");
        this.historyTable = OutboxTable.quote(schema) + "." + OutboxTable.quote(historyTable);
        this.migrations = List.copyOf(migrations);
        int last = 0;
        for (Migration m : this.migrations) {
            if (m.version() <= last) {
                throw new IllegalArgumentException("migrations of " + target + " out of order at version " + m.version());
            }
            last = m.version();
        }
    }

    /**
     * Loads {@code V<n>__<name>.sql} resources listed in order and renders {@code ${key}} placeholders.
     * An unknown placeholder is an error, so a typo never reaches the database. Earlier texts of a step, kept as
     * {@code superseded/V<n>__<name>.sql.<k>} (k = 1, 2, ...), are rendered the same way and their checksums
     * accepted for it.
     */
    public static List<Migration> load(Class<?> anchor, String folder, List<String> resourceNames,
                                       Map<String, String> values) {
        List<Migration> result = new ArrayList<>();
        for (String name : resourceNames) {
            Matcher m = RESOURCE_NAME.matcher(name);
            if (!m.matches()) {
                throw new IllegalArgumentException("migration resource '" + name + "' must be named V<n>__<name>.sql");
            }
            String sql = render(read(anchor, folder + "/" + name), values, name);
            int version = Integer.parseInt(m.group(1));
            String description = m.group(2).replace('_', ' ');
            Set<String> former = new HashSet<>();
            for (int k = 1; ; k++) {
                String path = folder + "/superseded/" + name + "." + k;
                if (anchor.getResource(path) == null) {
                    break;
                }
                former.add(new Migration(version, description, render(read(anchor, path), values, path)).checksum());
            }
            result.add(new Migration(version, description, sql, former));
        }
        return result;
    }

    private static String read(Class<?> anchor, String path) {
        try (InputStream in = anchor.getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("migration resource missing from the jar: " + path);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String render(String template, Map<String, String> values, String name) {
        Matcher m = PLACEHOLDER.matcher(template);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = values.get(m.group(1));
            if (value == null) {
                throw new IllegalStateException("unknown placeholder ${" + m.group(1) + "} in " + name);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        m.appendTail(out);
        return out.toString();
    }

    public String target() {
        return target;
    }

    /** The schema, unquoted. */
    public String schema() {
        return schema;
    }

    /** Quoted, schema-qualified name of the version table. */
    public String historyTable() {
        return historyTable;
    }

    public List<Migration> migrations() {
        return migrations;
    }

    /** The newest version this plan knows. */
    public int latestVersion() {
        return migrations.isEmpty() ? 0 : migrations.get(migrations.size() - 1).version();
    }
}
