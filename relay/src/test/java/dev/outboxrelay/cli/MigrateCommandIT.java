package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.testkit.PostgresDatabaseExtension;
import dev.outboxrelay.testkit.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/** {@code migrate} against the test kit's real PostgreSQL, run as the unprivileged, password-authenticated role. */
class MigrateCommandIT {

    /** Instance field: every test gets its own empty database. */
    @RegisterExtension
    final PostgresDatabaseExtension postgres = new PostgresDatabaseExtension();

    @TempDir
    Path dir;

    private CliRun migrate(String password, String... extra) {
        TestDatabase db = postgres.database();
        List<String> args = new ArrayList<>(List.of("migrate", "--db-url", db.jdbcUrl(), "--db-user", db.relayUser()));
        args.addAll(List.of(extra));
        return CliRun.of(Map.of("RELAY_DB_PASSWORD", password), args.toArray(String[]::new));
    }

    @Test
    void migrateCreatesTheTableOnceAndASecondRunChangesNothing() {
        TestDatabase db = postgres.database();
        CliRun first = migrate(db.relayPassword());
        assertThat(first).isEqualTo(new CliRun(0,
                "applied version 1 (create outbox table) to public.outbox\n"
                        + "applied version 2 (notify on insert) to public.outbox\n"
                        + "applied version 3 (create cdc offsets) to public.outbox\n"
                        + "applied version 4 (dead letter discard) to public.outbox\n"
                        + "applied version 5 (publication columns) to public.outbox\n"
                        + "applied version 6 (retry hold) to public.outbox\n"
                        + "public.outbox is now at version 6\n", ""));
        assertThat(db.queryLong("SELECT count(*) FROM pg_publication WHERE pubname = 'outbox_relay_pub'")).isOne();
        assertThat(db.queryString("SELECT tableowner FROM pg_tables WHERE tablename = 'outbox'"))
                .isEqualTo(db.relayUser());

        CliRun second = migrate(db.relayPassword());
        assertThat(second).isEqualTo(new CliRun(0, "public.outbox is already at version 6; nothing to apply\n", ""));
        assertThat(db.queryLong("SELECT count(*) FROM public.outbox_relay_schema_history")).isEqualTo(6);
    }

    @Test
    void concurrentMigratesBothSucceedAndApplyTheSchemaOnce() throws Exception {
        TestDatabase db = postgres.database();
        int runs = 4;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(runs);
        List<Future<CliRun>> results = new ArrayList<>();
        try {
            for (int i = 0; i < runs; i++) {
                results.add(pool.submit(() -> {
                    go.await();
                    return migrate(db.relayPassword());
                }));
            }
            go.countDown();
            int applied = 0;
            for (Future<CliRun> f : results) {
                CliRun r = f.get();
                assertThat(r.exitCode()).as(r.err()).isZero();
                applied += r.out().startsWith("applied version 1") ? 1 : 0;
            }
            assertThat(applied).isOne();
        } finally {
            pool.shutdownNow();
        }
        assertThat(db.queryLong("SELECT count(*) FROM public.outbox_relay_schema_history")).isEqualTo(6);
        assertThat(db.queryLong("SELECT count(*) FROM pg_tables WHERE tablename = 'outbox'")).isOne();
    }

    @Test
    void aRowWithOnlyTheContractColumnsIsAccepted() {
        TestDatabase db = postgres.database();
        assertThat(migrate(db.relayPassword()).exitCode()).isZero();
        db.execute("INSERT INTO public.outbox (id, aggregate_type, aggregate_id, event_type, payload, headers)"
                + " VALUES ('6f1c2d3e-0000-4000-8000-000000000001', 'order', 'o-1', 'OrderPaid',"
                + " '{\"amount\": 1}', '{\"traceparent\": \"x\"}')");
        assertThat(db.queryString("SELECT concat_ws(',', seq IS NOT NULL, created_at IS NOT NULL, attempts,"
                + " sent_at IS NULL, dead_lettered_at IS NULL) FROM public.outbox")).isEqualTo("t,t,0,t,t");
    }

    @Test
    void customTableAndPublicationAndPasswordFile() throws IOException {
        TestDatabase db = postgres.database();
        Path pw = Files.writeString(dir.resolve("pw"), db.relayPassword() + "\n");
        CliRun r = CliRun.of(Map.of(), "migrate", "--db-url", db.jdbcUrl(), "--db-user", db.relayUser(),
                "--db-password-file", pw.toString(), "--table", "public.orders_outbox", "--publication", "orders_pub");
        assertThat(r.exitCode()).as(r.err()).isZero();
        assertThat(r.out()).endsWith("public.orders_outbox is now at version 6\n");
        assertThat(db.queryLong("SELECT count(*) FROM pg_publication_tables WHERE pubname = 'orders_pub'"
                + " AND tablename = 'orders_outbox'")).isOne();
    }

    @Test
    void wrongPasswordIsOneLineNamingTheServerAndTheReason() {
        TestDatabase db = postgres.database();
        String wrong = "not-" + db.relayPassword();
        CliRun r = migrate(wrong);
        assertThat(r).isEqualTo(new CliRun(1, "", "error: cannot connect to PostgreSQL at " + db.host() + ":"
                + db.port() + "/" + db.name() + ": password authentication failed for user \"" + db.relayUser()
                + "\"\n"));
    }

    @Test
    void verboseAddsTheStackTraceButNeverThePassword() {
        TestDatabase db = postgres.database();
        String wrong = "not-" + db.relayPassword();
        CliRun r = migrate(wrong, "--verbose");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).contains("DatabaseConnectException", "\tat ").doesNotContain(wrong);
    }

    @Test
    void adoptAddsTheBookkeepingToADebeziumTableOnceAndKeepsItsRowsAsSent() {
        TestDatabase db = postgres.database();
        db.execute("CREATE TABLE public.outboxevent (id uuid PRIMARY KEY, aggregatetype varchar(255) NOT NULL,"
                + " aggregateid varchar(255) NOT NULL, type varchar(255) NOT NULL, payload jsonb,"
                + " \"timestamp\" timestamptz)");
        db.execute("ALTER TABLE public.outboxevent OWNER TO " + db.relayUser());
        db.execute("INSERT INTO public.outboxevent VALUES (gen_random_uuid(), 'Order', 'o-1', 'Placed', '{}', now())");
        String[] flags = {"--adopt", "--table", "public.outboxevent", "--table-format", "debezium",
            "--column", "created-at=timestamp", "--publication", "outboxevent_pub"};

        CliRun first = migrate(db.relayPassword(), flags);
        assertThat(first).isEqualTo(new CliRun(0, "applied adoption version 1 (adopt existing table) to"
                + " public.outboxevent\napplied adoption version 2 (retry hold) to public.outboxevent\n"
                + "public.outboxevent is now at version 2\n", ""));
        assertThat(db.queryLong("SELECT count(*) FROM outboxevent WHERE sent_at IS NOT NULL")).isOne();
        assertThat(db.queryString("SELECT string_agg(attname, ',' ORDER BY attname) FROM pg_publication_tables,"
                + " unnest(attnames) attname WHERE pubname = 'outboxevent_pub'"))
                .isEqualTo("aggregateid,aggregatetype,id,payload,type");
        db.execute("INSERT INTO public.outboxevent (id, aggregatetype, aggregateid, type, payload)"
                + " VALUES (gen_random_uuid(), 'Order', 'o-1', 'Paid', '{}')");
        assertThat(db.queryLong("SELECT count(*) FROM outboxevent WHERE sent_at IS NULL AND seq IS NOT NULL"
                + " AND attempts = 0")).as("a new row is unsent and numbered").isOne();

        assertThat(migrate(db.relayPassword(), flags)).isEqualTo(new CliRun(0,
                "public.outboxevent is already at version 2; nothing to apply\n", ""));
    }

    @Test
    void adoptNamesAColumnThatDoesNotFitAndChangesNothing() {
        TestDatabase db = postgres.database();
        db.execute("CREATE TABLE public.outboxevent (id varchar(36) PRIMARY KEY, aggregatetype text NOT NULL,"
                + " aggregateid text NOT NULL, type text NOT NULL, payload text)");
        db.execute("ALTER TABLE public.outboxevent OWNER TO " + db.relayUser());
        CliRun r = migrate(db.relayPassword(), "--adopt", "--table", "outboxevent", "--table-format", "debezium");
        assertThat(r.exitCode()).isEqualTo(1);
        assertThat(r.err()).contains("outbox-relay: column id of public.outboxevent is character varying, the relay"
                + " needs uuid");
        assertThat(db.queryLong("SELECT count(*) FROM pg_attribute WHERE attrelid = 'outboxevent'::regclass"
                + " AND attname = 'seq'")).isZero();
    }

    @Test
    void aForeignLayoutIsAdoptedNotCreated() {
        TestDatabase db = postgres.database();
        CliRun r = migrate(db.relayPassword(), "--table-format", "debezium");
        assertThat(r).isEqualTo(new CliRun(2, "", "error: --table-format/--column: migrate creates only the relay's"
                + " own table layout; adopt an existing table with migrate --adopt (add --print to see its SQL first)"
                + " (see 'outbox-relay migrate --help')\n"));
    }
}
