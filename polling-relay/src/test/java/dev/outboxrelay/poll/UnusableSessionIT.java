package dev.outboxrelay.poll;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.testkit.CapturedLogs;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.Throughout;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A session that connects but cannot relay (a standby, no table, a missing privilege): one WARN that says what to
 * fix, not ready, backing off, instead of reconnecting every 100 ms and logging "lost"/"restored" each time; and
 * once it is fixed the relay goes on by itself.
 */
class UnusableSessionIT {

    private static final Duration WAIT = Duration.ofSeconds(60);
    private static final String TABLE = "public.outbox";

    private CapturedLogs logs;
    private final String type = "unusable" + UUID.randomUUID().toString().substring(0, 8);
    private PollingSource source;
    private TestDatabase db;

    @BeforeEach
    void capture() {
        logs = CapturedLogs.of(JdbcPollingSource.class);
    }

    @AfterEach
    void tearDown() {
        logs.close();
        if (source != null) {
            source.close();
        }
        if (db != null) {
            db.drop();
        }
    }

    @Test
    void aStandbyIsWaitedForUntilItIsPromoted() throws Exception {
        try (TestPostgres primary = TestPostgres.start()) {
            TestDatabase onPrimary = primary.createDatabase("unusable");
            PollingRelays.migrate(onPrimary, TABLE);
            try (TestPostgres standby = primary.startStandby()) {
                TestDatabase onStandby = onPrimary.on(standby);
                await().atMost(WAIT).until(() -> onStandby.queryLong("SELECT count(*) FROM pg_class"
                        + " WHERE relname = 'outbox'") == 1);
                source = start(onStandby);
                assertOneWarningAndNotReady("the database is a standby in recovery (read-only): point --db-url at the"
                        + " primary, or wait for this server's promotion");

                onStandby.execute("SELECT pg_promote()");
                assertRelaysAgain(onStandby);
                source.close();
                source = null;
            }
        }
    }

    @Test
    void aMissingTableIsWaitedForUntilMigrateRuns() throws Exception {
        db = TestPostgres.shared().createDatabase("unusable");
        source = start(db);
        assertOneWarningAndNotReady("table public.outbox does not exist: run migrate, or check --table");

        PollingRelays.migrate(db, TABLE);
        assertRelaysAgain(db);
    }

    @Test
    void anOutdatedSchemaIsNamedUntilMigrateRuns() throws Exception {
        db = TestPostgres.shared().createDatabase("unusable");
        PollingRelays.migrate(db, TABLE);
        // Back to the schema before migration 4, as a relay upgrade finds it before `migrate` runs.
        db.execute("ALTER TABLE outbox DROP COLUMN discarded_at, DROP COLUMN discarded_by, DROP COLUMN retry_at;"
                + " CREATE INDEX outbox_dead_idx ON outbox (aggregate_id) WHERE dead_lettered_at IS NOT NULL;"
                + " DELETE FROM outbox_relay_schema_history WHERE version >= 4");
        source = start(db);
        assertOneWarningAndNotReady("table public.outbox lacks column(s) discarded_at, retry_at of the current schema: run"
                + " migrate with this relay's version");

        PollingRelays.migrate(db, TABLE);
        assertRelaysAgain(db);
    }

    @Test
    void aMissingPrivilegeIsNamedWithTheGrantThatFixesIt() throws Exception {
        db = TestPostgres.shared().createDatabase("unusable");
        PollingRelays.migrate(db, TABLE);
        db.execute("REVOKE UPDATE ON outbox FROM " + db.relayUser());
        new OutboxWriter(db, TABLE).insert(List.of(OutboxWriter.Row.of(type, "k", 0)));
        source = start(db);
        assertOneWarningAndNotReady("role '" + db.relayUser() + "' lacks UPDATE on public.outbox: GRANT UPDATE ON"
                + " \"public\".\"outbox\" TO \"" + db.relayUser() + "\"");
        assertThat(TopicReader.of(TestKafka.shared()).readAll("unusable." + type))
                .as("nothing is published that could not be marked sent").isEmpty();

        db.execute("GRANT UPDATE ON outbox TO " + db.relayUser());
        assertRelaysAgain(db);
    }

    private PollingSource start(TestDatabase database) {
        return PollingRelays.start(PollingRelays.settings(TABLE, Map.of()).build(), database,
                TestKafka.shared().bootstrapServers(), Map.of("topic-template", "unusable.${aggregateType}"), Map.of(),
                RelayListener.none());
    }

    /** Several backoff rounds (at most 1 s each in tests) pass with exactly one WARN and the source not ready. */
    private void assertOneWarningAndNotReady(String problem) throws InterruptedException {
        await().atMost(WAIT).until(() -> !warnings().isEmpty());
        Throughout.holds("one WARN over several backoff rounds", Duration.ofSeconds(3), () -> warnings().size() == 1);
        assertThat(warnings()).containsExactly("Cannot relay public.outbox: " + problem
                + "; retrying with backoff (at most every 1 s)");
        assertThat(source.isHealthy()).isFalse();
    }

    private void assertRelaysAgain(TestDatabase database) {
        List<String> ids = new OutboxWriter(database, TABLE).insert(List.of(OutboxWriter.Row.of(type, "k", 1)));
        assertThat(TopicReader.of(TestKafka.shared()).readUntilIds("unusable." + type, Set.copyOf(ids), WAIT))
                .extracting(r -> r.id()).contains(ids.get(0));
        await().atMost(WAIT).until(source::isHealthy);
        assertThat(warnings()).hasSize(1);
        assertThat(logs.messages())
                .contains("Database connection for public.outbox restored");
    }

    private List<String> warnings() {
        return logs.messages(Level.WARN);
    }
}
