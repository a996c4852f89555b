package dev.outboxrelay.schema;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/** The row states the relay queries by are the predicates of the partial indexes the migrations create. */
class OutboxSqlTest {

    private final String schema = OutboxSchema.plan(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION)
            .migrations().stream().map(Migration::sql).collect(Collectors.joining("\n"));

    @Test
    void theUnsentAndLiveDeadLetterConditionsAreTheIndexPredicates() {
        assertThat(schema).contains("(seq) WHERE " + OutboxSql.UNSENT + ";")
                .contains("(aggregate_id) WHERE " + OutboxSql.LIVE_DEAD_LETTER + ";");
    }

    @Test
    void aliasedConditionsNameEveryColumnThroughTheAlias() {
        assertThat(OutboxSql.unsent("o")).isEqualTo("o.sent_at IS NULL AND o.dead_lettered_at IS NULL");
        assertThat(OutboxSql.liveDeadLetter("d")).isEqualTo("d.dead_lettered_at IS NOT NULL AND d.discarded_at IS NULL");
        assertThat(OutboxSql.eventColumns("o")).startsWith("o.id, o.aggregate_type,").endsWith("o.created_at");
    }

    @Test
    void statementsAreRenderedForTheirTableAndTheFetchHonoursBlock() {
        OutboxSql sql = OutboxSql.forTable(OutboxTable.parse("app.events"));
        assertThat(sql.markSent()).isEqualTo("UPDATE \"app\".\"events\" SET sent_at = now() WHERE id = ANY(?)"
                + " AND sent_at IS NULL");
        assertThat(sql.fetchUnsent(true)).contains("WHERE o.sent_at IS NULL AND o.dead_lettered_at IS NULL",
                "NOT EXISTS (SELECT 1 FROM \"app\".\"events\" d WHERE d.dead_lettered_at IS NOT NULL");
        assertThat(sql.fetchUnsent(false)).doesNotContain("NOT EXISTS")
                .contains("ORDER BY o.seq LIMIT ?) f WHERE coalesce(f.bytes_before, 0) < ? ORDER BY f.seq");
        assertThat(sql.unsentPageAfter()).startsWith("SELECT f.id,").contains("AND o.seq > ? ORDER BY o.seq LIMIT ?");
        assertThat(sql.listDeadLetters()).contains(OutboxSql.deadLetterSelection());
    }
}
