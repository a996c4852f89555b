package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.PostgresDatabaseExtension;
import dev.outboxrelay.testkit.TestDatabase;
import java.sql.Connection;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code status} and {@code dead-letters} against the test kit's real PostgreSQL. */
class OpsCommandsIT {

    private static final String A = "00000000-0000-4000-8000-00000000000a";
    private static final String B = "00000000-0000-4000-8000-00000000000b";
    private static final String C = "00000000-0000-4000-8000-00000000000c";

    @RegisterExtension
    final PostgresDatabaseExtension postgres = new PostgresDatabaseExtension();

    private TestDatabase db;

    @BeforeEach
    void migrate() throws Exception {
        db = postgres.database();
        try (Connection c = db.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
    }

    private CliRun cli(String... args) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of("--db-url", db.jdbcUrl(), "--db-user", db.relayUser()));
        return CliRun.of(Map.of("RELAY_DB_PASSWORD", db.relayPassword()), all.toArray(String[]::new));
    }

    private void deadLetter(String id, String type, String key) {
        db.execute("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload, attempts, last_error,"
                + " dead_lettered_at) VALUES ('" + id + "', '" + type + "', '" + key + "', 'Broken',"
                + " '{\"secret\": \"payload-never-shown\"}', 10, 'Kafka rejected the record: RecordTooLargeException', now())");
    }

    @Test
    void statusOfAnEmptyOutboxIsHealthy() {
        CliRun r = cli("status");
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("outbox public.outbox: backlog 0 row(s), oldest unsent 0.0 s, dead letters 0\n"
                + "slot " + dev.outboxrelay.cdc.CdcOptions.SLOT_NAME.defaultValue() + ": none\n"
                + "active instance: none (no session holds the relay lock of public.outbox)\n"
                + "status: healthy\n");
    }

    @Test
    void statusIsUnhealthyWithDeadLettersOrAnOldBacklogAndSaysWhyInJson() throws Exception {
        deadLetter(A, "order", "o-1");
        db.execute("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload, created_at)"
                + " VALUES (gen_random_uuid(), 'order', 'o-2', 'Placed', '{}', now() - interval '10 minutes')");
        try (Connection lock = db.connect()) {
            lock.createStatement().execute("SELECT set_config('application_name', 'orders-relay@host:1/cdc', false),"
                    + " pg_advisory_lock(hashtext('outbox-relay'), hashtext('public.outbox'))");
            CliRun r = cli("status", "--json", "--max-age", "5m");
            assertThat(r.exitCode()).as(r.err()).isEqualTo(3);
            assertThat(r.out()).startsWith("{\"table\":\"public.outbox\",\"healthy\":false,\"backlog\":1,")
                    .contains("\"dead_letters\":1", "\"slot\":null",
                            "\"active_instance\":{\"lock\":\"cdc\",\"application_name\":\"orders-relay@host:1/cdc\"",
                            "\"problems\":[\"1 dead letter(s): see dead-letters list\","
                                    + "\"oldest unsent row is 60")
                    .containsPattern("oldest unsent row is 60[0-9] s old \\(--max-age 300 s\\)\"]}");
        }
        CliRun text = cli("status", "--max-age", "1h");
        assertThat(text.exitCode()).isEqualTo(3);
        assertThat(text.out()).endsWith("status: unhealthy: 1 dead letter(s): see dead-letters list\n");
    }

    @Test
    void listShowsBookkeepingNeverPayloadsAndFilters() {
        deadLetter(A, "order", "o-1");
        deadLetter(B, "invoice", "i-1");
        CliRun all = cli("dead-letters", "list");
        assertThat(all.exitCode()).as(all.err()).isZero();
        assertThat(all.out()).contains(A + "  order/o-1  Broken  attempts=10", B + "  invoice/i-1",
                "    last error: Kafka rejected the record: RecordTooLargeException", "2 dead letter(s)")
                .doesNotContain("payload-never-shown");
        CliRun orders = cli("dead-letters", "list", "--aggregate-type", "order", "--json");
        assertThat(orders.out()).startsWith("[{\"id\":\"" + A + "\",\"aggregate_type\":\"order\"")
                .doesNotContain(B);
        assertThat(cli("dead-letters", "list", "--since", "1h").out()).contains(A, B);
        assertThat(cli("dead-letters", "list", "--since", "2999-01-01T00:00:00Z").out()).isEqualTo("no dead letters\n");
    }

    @Test
    void retryPutsRowsBackOnceAndIsIdempotent() {
        deadLetter(A, "order", "o-1");
        deadLetter(B, "order", "o-2");
        deadLetter(C, "order", "o-3");
        CliRun r = cli("dead-letters", "retry", "--id", A, "--id", B);
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).startsWith("retried 2 dead letter(s); a running relay of either mode publishes them"
                + " within seconds, in key order")
                .contains("  " + A + "\n", "  " + B + "\n");
        assertThat(db.queryString("SELECT string_agg(concat_ws(',', attempts, dead_lettered_at IS NULL,"
                + " last_error IS NOT NULL), ';' ORDER BY id) FROM outbox WHERE id IN ('" + A + "','" + B + "')"))
                .isEqualTo("0,t,t;0,t,t");
        CliRun again = cli("dead-letters", "retry", "--id", A + "," + B);
        assertThat(again.exitCode()).isZero();
        assertThat(again.out()).isEqualTo("no dead letters matched; nothing retried (already retried, or never"
                + " dead-lettered)\n");
        assertThat(db.queryLong("SELECT count(*) FROM outbox WHERE dead_lettered_at IS NOT NULL")).isOne();
    }

    @Test
    void discardRecordsWhoAndWhenAndDiscardedRowsNoLongerCountOrRelay() {
        deadLetter(A, "order", "o-1");
        deadLetter(B, "invoice", "i-1");
        CliRun r = cli("dead-letters", "discard", "--aggregate-type", "order", "--operator", "alice");
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("discarded 1 dead letter(s)\n  " + A + "\n");
        assertThat(db.queryString("SELECT discarded_by || ',' || (discarded_at IS NOT NULL) FROM outbox WHERE id = '"
                + A + "'")).isEqualTo("alice,true");
        assertThat(cli("dead-letters", "discard", "--aggregate-type", "order").out())
                .startsWith("no dead letters matched; nothing discarded");
        assertThat(cli("dead-letters", "list").out()).doesNotContain(A).contains(B);
        assertThat(cli("dead-letters", "retry", "--id", A).out()).startsWith("no dead letters matched");
        assertThat(cli("status").out()).contains("dead letters 1");
        // Neither source fetches it: it is not unsent-and-live.
        assertThat(db.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL AND dead_lettered_at IS NULL"))
                .isZero();
        CliRun all = cli("dead-letters", "discard", "--all");
        assertThat(all.out()).isEqualTo("discarded 1 dead letter(s)\n  " + B + "\n");
        assertThat(cli("status").exitCode()).isZero();
    }

    @Test
    void selectionMistakesAreUsageErrorsWithSpecificMessages() {
        CliRun none = cli("dead-letters", "retry");
        assertThat(none.exitCode()).isEqualTo(2);
        assertThat(none.err()).isEqualTo("error: retry needs a selection: --id ID (repeatable), --aggregate-type TYPE,"
                + " --since TIME, or --all (see 'outbox-relay dead-letters retry --help')\n");
        CliRun both = cli("dead-letters", "discard", "--all", "--id", A);
        assertThat(both.err()).isEqualTo("error: --all cannot be combined with --id, --aggregate-type or --since"
                + " (see 'outbox-relay dead-letters discard --help')\n");
        CliRun badId = cli("dead-letters", "retry", "--id", "nope");
        assertThat(badId.exitCode()).isEqualTo(2);
        assertThat(badId.err()).isEqualTo("error: --id: expected an event id (UUID), was 'nope'"
                + " (see 'outbox-relay dead-letters retry --help')\n");
        CliRun badSince = cli("dead-letters", "list", "--since", "yesterday");
        assertThat(badSince.err()).startsWith("error: --since: expected an ISO-8601 time such as"
                + " 2024-05-01T10:00:00Z or a duration such as 24h, was 'yesterday'");
        CliRun group = CliRun.of("dead-letters");
        assertThat(group.exitCode()).isEqualTo(2);
        assertThat(group.err()).isEqualTo("error: dead-letters: missing action: list, retry, discard"
                + " (see 'outbox-relay dead-letters --help')\n");
    }

    @Test
    void everyCommandsHelpHasAnExample() {
        for (String[] cmd : new String[][] {{"status", "--help"}, {"dead-letters", "--help"},
            {"dead-letters", "list", "--help"}, {"dead-letters", "retry", "--help"},
            {"dead-letters", "discard", "--help"}, {"run", "--help"}}) {
            CliRun r = CliRun.of(cmd);
            assertThat(r.exitCode()).isZero();
            assertThat(r.out()).as(String.join(" ", cmd)).containsPattern("Examples?:\\n  outbox-relay|Examples?:\\n  RELAY_");
        }
    }
}
