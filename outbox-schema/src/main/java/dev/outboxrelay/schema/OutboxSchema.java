package dev.outboxrelay.schema;

import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The outbox table's schema: its migrations, rendered for a table name and a CDC publication name.
 *
 * <p>The application-facing contract is the columns {@code id, aggregate_type, aggregate_id, event_type,
 * payload, headers, created_at}; every other column is the relay's bookkeeping and has a default.
 */
public final class OutboxSchema {

    /** The publication the CDC source reads unless told otherwise. */
    public static final String DEFAULT_PUBLICATION = "outbox_relay_pub";
    /** Version table shared by every migration plan in a schema. */
    public static final String HISTORY_TABLE = "outbox_relay_schema_history";

    private static final Pattern IDENTIFIER = Pattern.compile("[a-z_][a-z0-9_]{0,62}");
    private static final List<String> STEPS = List.of("V1__create_outbox_table.sql", "V2__notify_on_insert.sql",
            "V3__create_cdc_offsets.sql", "V4__dead_letter_discard.sql", "V5__publication_columns.sql",
            "V6__retry_hold.sql");

    private OutboxSchema() {
    }

    /** The migration plan for {@code table}, with the CDC publication named {@code publication}. */
    public static MigrationPlan plan(OutboxTable table, String publication) {
        checkPublication(publication);
        Map<String, String> values = Map.of(
                "outbox", table.quoted(),
                "schema", OutboxTable.quote(table.schema()),
                "prefix", table.table(),
                "publication", OutboxTable.quote(publication),
                "publicationname", publication,
                "notifyfunction", table.quotedInSchema(table.companion("relay_notify")),
                "channel", notifyChannel(table));
        List<Migration> steps = MigrationPlan.load(OutboxSchema.class, "outbox", STEPS, values);
        return new MigrationPlan("outbox:" + table, table.schema(), HISTORY_TABLE, steps);
    }

    /**
     * The plan that adopts an existing table read through {@code table}'s layout ({@code migrate --adopt}): the
     * relay's bookkeeping, indexes, notification, offsets table and publication, without rewriting the table. Its
     * script checks the table's columns first and names what does not fit. Recorded in the same history table,
     * as target {@code adopted:<table>}.
     */
    public static MigrationPlan adoptionPlan(OutboxTable table, String publication) {
        checkPublication(publication);
        TableLayout layout = table.layout();
        StringBuilder expected = new StringBuilder();
        expect(expected, layout, TableLayout.Column.ID, "uuid");
        expect(expected, layout, TableLayout.Column.AGGREGATE_TYPE, "text,character varying");
        expect(expected, layout, TableLayout.Column.AGGREGATE_ID, "text,character varying");
        expect(expected, layout, TableLayout.Column.EVENT_TYPE, "text,character varying");
        expect(expected, layout, TableLayout.Column.PAYLOAD, "jsonb,json,text,character varying,bytea");
        expect(expected, layout, TableLayout.Column.HEADERS, "jsonb,json");
        expect(expected, layout, TableLayout.Column.CREATED_AT, "timestamp with time zone");
        StringBuilder streamed = new StringBuilder();
        for (String c : layout.streamedColumns()) {
            streamed.append(streamed.length() == 0 ? "" : ", ").append(OutboxTable.quote(c));
        }
        Map<String, String> values = Map.ofEntries(
                Map.entry("outbox", table.quoted()),
                Map.entry("tablename", table.toString()),
                Map.entry("schema", OutboxTable.quote(table.schema())),
                Map.entry("prefix", table.table()),
                Map.entry("publication", OutboxTable.quote(publication)),
                Map.entry("publicationname", publication),
                Map.entry("notifyfunction", table.quotedInSchema(table.companion("relay_notify"))),
                Map.entry("channel", notifyChannel(table)),
                Map.entry("expected", expected.toString()),
                Map.entry("createdat", layout.ref("", TableLayout.Column.CREATED_AT)),
                Map.entry("aggregateid", layout.ref("", TableLayout.Column.AGGREGATE_ID)),
                Map.entry("seqsequence", table.quotedInSchema(table.companion("seq_seq"))),
                Map.entry("streamed", streamed.toString()));
        List<Migration> steps = MigrationPlan.load(OutboxSchema.class, "adopt",
                List.of("V1__adopt_existing_table.sql", "V2__retry_hold.sql"), values);
        return new MigrationPlan("adopted:" + table, table.schema(), HISTORY_TABLE, steps);
    }

    private static void expect(StringBuilder values, TableLayout layout, TableLayout.Column role, String types) {
        String name = layout.name(role);
        if (name != null) {
            values.append(values.length() == 0 ? "" : ", ").append("('").append(name).append("', '").append(types)
                    .append("', ").append(role != TableLayout.Column.CREATED_AT).append(")");
        }
    }

    /** The CDC source's offsets table beside {@code table} (created by migration 3), quoted. */
    public static String cdcOffsetsTable(OutboxTable table) {
        return table.quotedInSchema(table.companion("cdc_offsets"));
    }

    /**
     * The LISTEN/NOTIFY channel on which migration 2 announces committed inserts into {@code table}. Two
     * tables of the same name in different schemas share it: that only costs a spurious wake-up.
     */
    public static String notifyChannel(OutboxTable table) {
        return table.companion("relay_notify");
    }

    private static void checkPublication(String publication) {
        if (!IDENTIFIER.matcher(publication).matches()) {
            throw new IllegalArgumentException("'" + publication + "' is not a valid publication name:"
                    + " expected lower-case letters, digits and underscores, starting with a letter or underscore");
        }
    }

    /** The migrator for {@code table} and {@code publication}. */
    public static Migrator migrator(OutboxTable table, String publication) {
        return Migrator.forPlan(plan(table, publication));
    }
}
