package dev.outboxrelay.schema;

/**
 * Every statement the relay runs on the outbox table's rows, and the row states and column lists they are made of,
 * written once, next to the migrations that create the columns and the partial indexes these conditions must match
 * (an index is only used when a query's condition implies its predicate, so the text here and in {@code V1}/{@code
 * V4} go together). {@link #forTable} renders the statements for one table; parameters are listed per statement.
 */
public final class OutboxSql {

    /** Rows a source still has to publish: neither sent nor dead-lettered (the unsent-rows index). */
    public static final String UNSENT = unsent("");
    /** Dead letters an operator has not discarded: they count, and with {@code block} they hold their key. */
    public static final String LIVE_DEAD_LETTER = liveDeadLetter("");
    /** Rows a source must not publish again: sent, or dead-lettered (live or discarded). */
    public static final String SETTLED = "(sent_at IS NOT NULL OR dead_lettered_at IS NOT NULL)";
    /**
     * The columns an event is made of, as both sources read them: headers as text (the driver does no JSON work), the
     * payload as it is (jsonb arrives as its text all the same; a {@code bytea} payload as bytes, where a cast to
     * text would give its hex form), in the order {@code id, aggregate_type, aggregate_id, event_type, payload,
     * headers, created_at}.
     */
    public static final String EVENT_COLUMNS = eventColumns("");

    private final String t;
    private final TableLayout layout;
    /** The mapped columns, unqualified: {@code "aggregateid"} on a Debezium table. */
    private final String id;
    private final String aggregateId;

    private OutboxSql(OutboxTable table) {
        this.t = table.quoted();
        this.layout = table.layout();
        this.id = layout.ref("", TableLayout.Column.ID);
        this.aggregateId = layout.ref("", TableLayout.Column.AGGREGATE_ID);
    }

    /**
     * The layout's extra columns (see {@link TableLayout#withExtras}) under {@code alias}, each after a comma; every
     * statement that reads events selects them last.
     */
    private String extras(String alias) {
        StringBuilder b = new StringBuilder();
        for (String c : layout.extras()) {
            b.append(", ").append(TableLayout.refColumn(alias, c));
        }
        return b.toString();
    }

    /** {@code role} under {@code alias}, selected under the relay's name ({@code o."aggregateid" AS aggregate_id}). */
    private String as(String alias, TableLayout.Column role) {
        return layout.ref(alias, role) + " AS " + role.relayName();
    }

    /** The statements for {@code table}. */
    public static OutboxSql forTable(OutboxTable table) {
        return new OutboxSql(table);
    }

    // --- Settling: what the delivery pipeline writes once Kafka answered ---

    /** Marks acknowledged rows sent. Parameter: {@code uuid[]} ids. */
    public String markSent() {
        return "UPDATE " + t + " SET sent_at = now() WHERE " + id + " = ANY(?) AND sent_at IS NULL";
    }

    /** Deletes acknowledged rows ({@code --on-publish delete}). Parameter: {@code uuid[]} ids. */
    public String delete() {
        return "DELETE FROM " + t + " WHERE " + id + " = ANY(?)";
    }

    /**
     * Charges one failed attempt, dead-lettering the row at the limit; returns whether it is a dead letter now.
     * Parameters: reason, max attempts, id.
     */
    public String recordFailure() {
        return "UPDATE " + t + " SET attempts = attempts + 1, last_error = ?,"
                + " dead_lettered_at = CASE WHEN attempts + 1 >= ? THEN now() ELSE dead_lettered_at END"
                + " WHERE " + id + " = ? AND sent_at IS NULL RETURNING dead_lettered_at IS NOT NULL";
    }

    /**
     * Holds a failed row's key for its retry, durably: {@code retry_at} is when the row may be attempted again (see
     * {@link #heldForRetry}). Parameters: delay in ms, id.
     */
    public String holdForRetry() {
        return "UPDATE " + t + " SET retry_at = now() + ? * interval '1 millisecond' WHERE " + id + " = ? AND "
                + UNSENT;
    }

    /**
     * The keys still held for a retry, when a relay becomes active: key, milliseconds until the latest hold of its
     * unsent rows ends, and their highest attempts (through the retry index). No parameters.
     */
    public String heldForRetry() {
        return "SELECT " + aggregateId + ", ceil(extract(epoch FROM max(retry_at) - now()) * 1000)::bigint,"
                + " max(attempts) FROM " + t + " WHERE retry_at IS NOT NULL AND " + UNSENT
                + " AND retry_at > now() GROUP BY " + aggregateId;
    }

    /** The attempts of those rows that are still unsent and live. Parameter: {@code uuid[]} ids. */
    public String attempts() {
        return "SELECT " + id + ", attempts FROM " + t + " WHERE " + id + " = ANY(?) AND " + UNSENT;
    }

    /** Deletes one batch of rows sent before the retention. Parameters: retention in ms, batch size. */
    public String purgeSent() {
        return "DELETE FROM " + t + " WHERE " + id + " IN (SELECT " + id + " FROM " + t
                + " WHERE sent_at IS NOT NULL AND sent_at < now() - ? * interval '1 millisecond'"
                + " ORDER BY sent_at LIMIT ?)";
    }

    // --- Reading: what the sources publish ---

    /**
     * The poll source's fetch: the oldest unsent rows from the commit horizon's floor, {@code seq} first, then
     * {@link #EVENT_COLUMNS}, then {@code attempts}. Parameters: {@code bigint[]} seqs in flight (left out),
     * floor, {@code text[]} parked keys (left out), limit, byte budget (the rows are cut where the estimated bytes
     * before a row reach it: {@link #withinBytes}).
     *
     * <p>Always from the floor (CommitHorizon: no row below it is unsent or can still commit), never "after the last
     * seq seen": a transaction that took a lower seq and commits late is picked up by the next fetch, before any
     * later row of its keys. Rows in flight are excluded by a filter on the ordered index scan (an anti-join against
     * unnest() became a 300 ms nested loop on stale statistics), written "(= ANY) IS NOT TRUE" because PostgreSQL
     * hashes a constant "= ANY" list from version 14 but "<> ALL" (which it also makes of NOT (= ANY)) only from
     * 15: on 14, "<> ALL" compared every row with the whole list, 57 ms per fetch with 3,000 rows in flight instead
     * of 6.5.
     *
     * @param behindLiveDeadLetters also leave out rows behind a live dead letter of their key
     *                              ({@code --on-poison block})
     */
    public String fetchUnsent(boolean behindLiveDeadLetters) {
        return fetchUnsent(behindLiveDeadLetters, false);
    }

    /**
     * {@link #fetchUnsent(boolean)}, with {@code sharded} only the rows of one key-hash shard: two more parameters
     * after the parked keys, the shard count and this shard's index. A key's shard is
     * {@code hashtextextended(aggregate_id, 0)} (non-negative) modulo the count, PostgreSQL's own stable hash (the one
     * hash partitioning builds on), so every aggregate belongs to exactly one shard whatever reads it.
     */
    public String fetchUnsent(boolean behindLiveDeadLetters, boolean sharded) {
        String shard = sharded ? " AND " + shardOf(layout.ref("o", TableLayout.Column.AGGREGATE_ID)) + " = ?" : "";
        String blocked = behindLiveDeadLetters
                ? " AND NOT EXISTS (SELECT 1 FROM " + t + " d WHERE " + liveDeadLetter("d")
                        + " AND " + layout.ref("d", TableLayout.Column.AGGREGATE_ID) + " = "
                        + layout.ref("o", TableLayout.Column.AGGREGATE_ID) + " AND d.seq < o.seq)"
                : "";
        return "SELECT f.seq, " + eventColumns("f") + ", f.attempts" + extras("f") + " FROM "
                + withinBytes(unsent("o")
                + " AND (o.seq = ANY(?::bigint[])) IS NOT TRUE AND o.seq >= ?"
                + " AND (" + layout.ref("o", TableLayout.Column.AGGREGATE_ID) + " = ANY(?::text[])) IS NOT TRUE"
                + shard + blocked);
    }

    /** The shard of a key expression: its stable hash, made non-negative, modulo a parameter (the shard count). */
    public static String shardOf(String keyExpression) {
        return "((pg_catalog.hashtextextended(" + keyExpression + ", 0) & 9223372036854775807) % ?)";
    }

    /**
     * The rows matching {@code where} (on alias {@code o}) in {@code seq} order, as subquery {@code f} (raw columns,
     * so payloads are only turned into text for the rows kept), cut at a byte budget: a row is kept while the
     * estimated bytes of the rows before it ({@link #rowBytes}) stay under the budget, so the first row always is
     * and the cut never skips a row for a later one. Parameters after those of {@code where}: limit, byte budget.
     */
    private String withinBytes(String where) {
        return "(SELECT o.seq, " + as("o", TableLayout.Column.ID) + ", " + as("o", TableLayout.Column.AGGREGATE_TYPE)
                + ", " + as("o", TableLayout.Column.AGGREGATE_ID) + ", " + as("o", TableLayout.Column.EVENT_TYPE) + ", "
                + as("o", TableLayout.Column.PAYLOAD) + ", " + as("o", TableLayout.Column.HEADERS) + ", "
                + as("o", TableLayout.Column.CREATED_AT) + ", o.attempts" + extras("o") + ", sum(" + rowBytes("o")
                + ") OVER (ORDER BY o.seq ROWS BETWEEN UNBOUNDED"
                + " PRECEDING AND 1 PRECEDING) AS bytes_before FROM " + t + " o WHERE " + where
                + " ORDER BY o.seq LIMIT ?) f WHERE coalesce(f.bytes_before, 0) < ? ORDER BY f.seq";
    }

    /**
     * A row's estimated size in the relay's memory, without reading values stored out of line: the stored size of
     * an uncompressed payload (jsonb's binary form is about as long as its text), the text length of a compressed
     * one (which must be decompressed to know it), the stored size of the headers and an allowance for the rest.
     */
    String rowBytes(String alias) {
        String payload = layout.ref(alias, TableLayout.Column.PAYLOAD);
        return "CASE WHEN pg_catalog.pg_column_compression(" + payload + ") IS NULL THEN"
                + " coalesce(pg_catalog.pg_column_size(" + payload + "), 0) ELSE pg_catalog.octet_length(" + payload
                + "::text) END + coalesce(pg_catalog.pg_column_size(" + layout.ref(alias, TableLayout.Column.HEADERS)
                + "), 0) + 256";
    }

    /**
     * The lowest seq a source may still have to publish at or above a floor; a live dead letter pins it, so one put
     * back for the relay ({@code retry}) is below no floor. Parameter: floor.
     */
    public String lowestPending() {
        return "SELECT least((SELECT min(seq) FROM " + t + " WHERE " + UNSENT + " AND seq >= ?), (SELECT min(seq) FROM "
                + t + " WHERE " + LIVE_DEAD_LETTER + "))";
    }

    /**
     * A page of the unsent rows after a seq, {@link #EVENT_COLUMNS} then {@code seq} (then the extras), in
     * {@code seq} order: the CDC rescan. Parameters: seq (exclusive), limit, byte budget (see {@link #withinBytes}).
     */
    public String unsentPageAfter() {
        return "SELECT " + eventColumns("f") + ", f.seq" + extras("f") + " FROM "
                + withinBytes(unsent("o") + " AND o.seq > ?");
    }

    /**
     * A parked key's unsent rows before a seq, {@link #EVENT_COLUMNS} then {@code seq} (then the extras), in
     * {@code seq} order. Parameters: key, seq
     * bound (exclusive), limit, byte budget (see {@link #withinBytes}).
     */
    public String unsentOfKeyBefore() {
        return "SELECT " + eventColumns("f") + ", f.seq" + extras("f") + " FROM "
                + withinBytes(layout.ref("o", TableLayout.Column.AGGREGATE_ID)
                + " = ? AND " + unsent("o")
                + " AND o.seq < ?");
    }

    /** A key's oldest live dead letter, {@code id, seq} (through its partial index). Parameter: key. */
    public String firstLiveDeadLetterOfKey() {
        return "SELECT " + id + ", seq FROM " + t + " WHERE " + aggregateId + " = ? AND " + LIVE_DEAD_LETTER
                + " ORDER BY seq LIMIT 1";
    }

    /** The keys that have a live dead letter. No parameters. */
    public String keysWithLiveDeadLetters() {
        return "SELECT DISTINCT " + aggregateId + " FROM " + t + " WHERE " + LIVE_DEAD_LETTER;
    }

    /**
     * Those of the ids whose rows this statement's snapshot sees, whatever their state: a row that an acknowledgement
     * did not change either is settled already or is not visible (yet). Parameter: {@code uuid[]}.
     */
    public String presentAmong() {
        return "SELECT " + id + " FROM " + t + " WHERE " + id + " = ANY(?)";
    }

    /** Those of the ids that are settled (sent or dead-lettered): not to publish again. Parameter: {@code uuid[]}. */
    public String settledAmong() {
        return "SELECT " + id + " FROM " + t + " WHERE " + id + " = ANY(?) AND " + SETTLED;
    }

    // --- Operating: probes, status, dead letters, verify ---

    /** Backlog, age of the oldest unsent row in seconds, live dead letters. No parameters. */
    public String stats() {
        return "SELECT (SELECT count(*) FROM " + t + " WHERE " + UNSENT + "),"
                + " (SELECT extract(epoch FROM now() - " + layout.ref("", TableLayout.Column.CREATED_AT)
                + ")::float8 FROM " + t + " WHERE " + UNSENT
                + " ORDER BY seq LIMIT 1),"
                + " (SELECT count(*) FROM " + t + " WHERE " + LIVE_DEAD_LETTER + ")";
    }

    /**
     * Live dead letters matching a selection, oldest first. Parameters: the {@link #deadLetterSelection} ones, then
     * the limit.
     */
    public String listDeadLetters() {
        return "SELECT " + described() + ", attempts, " + as("", TableLayout.Column.CREATED_AT)
                + ", dead_lettered_at, last_error FROM " + t + " WHERE " + deadLetterSelection()
                + " ORDER BY dead_lettered_at, seq LIMIT ?";
    }

    /**
     * Updates the live dead letters matching a selection, returning their ids.
     *
     * @param set the SET list; its parameters come before the {@link #deadLetterSelection} ones
     */
    public String updateDeadLetters(String set) {
        return "UPDATE " + t + " SET " + set + " WHERE " + deadLetterSelection() + " RETURNING " + id;
    }

    /**
     * Live dead letters, optionally by ids, aggregate type and dead-lettered since. Parameters, each twice (null
     * for "any"): {@code uuid[]} ids, aggregate type, {@code timestamptz} since.
     */
    public String deadLetterSelection() {
        return LIVE_DEAD_LETTER + " AND (?::uuid[] IS NULL OR " + id + " = ANY(?::uuid[]))"
                + " AND (?::text IS NULL OR " + layout.ref("", TableLayout.Column.AGGREGATE_TYPE) + " = ?::text)"
                + " AND (?::timestamptz IS NULL OR dead_lettered_at >= ?::timestamptz)";
    }

    /** Rows written since a time, in {@code seq} order, for {@code verify}. Parameter: {@code timestamp}. */
    public String auditSince() {
        return "SELECT " + described() + ", seq, " + as("", TableLayout.Column.CREATED_AT)
                + ", sent_at, dead_lettered_at, last_error" + extras("") + " FROM " + t + " WHERE "
                + layout.ref("", TableLayout.Column.CREATED_AT) + " >= ? ORDER BY seq";
    }

    /** id, aggregate_type, aggregate_id and event_type under the relay's names. */
    private String described() {
        return as("", TableLayout.Column.ID) + ", " + as("", TableLayout.Column.AGGREGATE_TYPE) + ", "
                + as("", TableLayout.Column.AGGREGATE_ID) + ", " + as("", TableLayout.Column.EVENT_TYPE);
    }

    /** {@link #UNSENT} for the table under {@code alias}. */
    public static String unsent(String alias) {
        String a = prefix(alias);
        return a + "sent_at IS NULL AND " + a + "dead_lettered_at IS NULL";
    }

    /** {@link #LIVE_DEAD_LETTER} for the table under {@code alias}. */
    public static String liveDeadLetter(String alias) {
        String a = prefix(alias);
        return a + "dead_lettered_at IS NOT NULL AND " + a + "discarded_at IS NULL";
    }

    /** {@link #EVENT_COLUMNS} for the table under {@code alias}. */
    public static String eventColumns(String alias) {
        String a = prefix(alias);
        return a + "id, " + a + "aggregate_type, " + a + "aggregate_id, " + a + "event_type, " + a + "payload, "
                + a + "headers::text, " + a + "created_at";
    }

    private static String prefix(String alias) {
        return alias.isEmpty() ? "" : alias + ".";
    }
}
