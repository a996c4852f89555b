package dev.outboxrelay.schema;

/**
 * The outbox table's row states and column lists, written once, next to the migrations that create the columns
 * and the partial indexes these conditions must match (an index is only used when a query's condition implies
 * its predicate, so the text here and in {@code V1}/{@code V4} go together). Every statement of the relay on the
 * outbox table builds on these.
 */
public final class OutboxSql {

    /** Rows a source still has to publish: neither sent nor dead-lettered (the unsent-rows index). */
    public static final String UNSENT = unsent("");
    /** Dead letters an operator has not discarded: they count, and with {@code block} they hold their key. */
    public static final String LIVE_DEAD_LETTER = liveDeadLetter("");
    /** Rows a source must not publish again: sent, or dead-lettered (live or discarded). */
    public static final String SETTLED = "(sent_at IS NOT NULL OR dead_lettered_at IS NOT NULL)";
    /**
     * The columns an event is made of, as both sources read them: jsonb as text (the driver does no JSON work),
     * in the order {@code id, aggregate_type, aggregate_id, event_type, payload, headers, created_at}.
     */
    public static final String EVENT_COLUMNS = eventColumns("");

    private OutboxSql() {
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
        return a + "id, " + a + "aggregate_type, " + a + "aggregate_id, " + a + "event_type, " + a + "payload::text, "
                + a + "headers::text, " + a + "created_at";
    }

    private static String prefix(String alias) {
        return alias.isEmpty() ? "" : alias + ".";
    }
}
