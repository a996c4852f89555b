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
        assertThat(sql.markSent()).isEqualTo("UPDATE \"app\".\"events\" SET sent_at = now() WHERE \"id\" = ANY(?)"
                + " AND sent_at IS NULL");
        assertThat(sql.fetchUnsent(true)).contains("WHERE o.sent_at IS NULL AND o.dead_lettered_at IS NULL",
                "NOT EXISTS (SELECT 1 FROM \"app\".\"events\" d WHERE d.dead_lettered_at IS NOT NULL");
        assertThat(sql.fetchUnsent(false)).doesNotContain("NOT EXISTS")
                .contains("ORDER BY o.seq LIMIT ?) f WHERE coalesce(f.bytes_before, 0) < ? ORDER BY f.seq");
        assertThat(sql.unsentPageAfter()).startsWith("SELECT f.id,").contains("AND o.seq > ? ORDER BY o.seq LIMIT ?");
        assertThat(sql.listDeadLetters()).contains(sql.deadLetterSelection());
    }

    @Test
    void aShardedFetchReadsOneKeyHashShardWithTwoMoreParameters() {
        OutboxSql sql = OutboxSql.forTable(OutboxTable.parse("app.events"));
        String sharded = sql.fetchUnsent(false, true);
        assertThat(sharded).contains("IS NOT TRUE AND ((pg_catalog.hashtextextended(o.\"aggregate_id\", 0)"
                + " & 9223372036854775807) % ?) = ?");
        assertThat(sharded.chars().filter(ch -> ch == '?').count())
                .isEqualTo(sql.fetchUnsent(false).chars().filter(ch -> ch == '?').count() + 2);
    }

    @Test
    void aMappedTableIsReadUnderTheRelaysNames() {
        OutboxSql sql = OutboxSql.forTable(OutboxTable.parse("app.events").withLayout(TableLayout.DEBEZIUM
                .with("aggregate-id=order_id,created-at=written_at")));
        assertThat(sql.fetchUnsent(true)).contains("o.\"aggregatetype\" AS aggregate_type",
                "o.\"order_id\" AS aggregate_id", "o.\"type\" AS event_type", "NULL AS headers",
                "o.\"written_at\" AS created_at", "d.\"order_id\" = o.\"order_id\"",
                "(o.\"order_id\" = ANY(?::text[])) IS NOT TRUE");
        assertThat(sql.markSent()).contains("WHERE \"id\" = ANY(?)");
        assertThat(sql.keysWithLiveDeadLetters()).startsWith("SELECT DISTINCT \"order_id\" FROM");
        assertThat(sql.auditSince()).contains("\"type\" AS event_type", "WHERE \"written_at\" >= ?");
    }

    @Test
    void layoutsAreMappedByRoleAndRefuseNonsense() {
        assertThat(TableLayout.RELAY.with("").isRelay()).isTrue();
        assertThat(TableLayout.DEBEZIUM.with("headers=hdrs").name(TableLayout.Column.HEADERS)).isEqualTo("hdrs");
        assertThat(TableLayout.RELAY.with("headers=").name(TableLayout.Column.HEADERS)).isNull();
        assertThat(TableLayout.DEBEZIUM.toString()).isEqualTo("id=id,aggregate-type=aggregatetype,"
                + "aggregate-id=aggregateid,event-type=type,payload=payload,headers=,created-at=created_at");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> TableLayout.RELAY.with("tenant=x"))
                .hasMessage("unknown column role 'tenant': use id, aggregate-type, aggregate-id, event-type, payload,"
                        + " headers or created-at");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> TableLayout.RELAY.with("payload="))
                .hasMessage("'payload=': the payload column is required");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> TableLayout.RELAY.with("event-type=a-b"))
                .hasMessage("'event-type=a-b': 'a-b' is not a plain column name (letters, digits, underscores)");
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> TableLayout.RELAY.with("event-type=aggregate_id"))
                .hasMessage("'event-type=aggregate_id' maps two roles to one column");
    }
}
