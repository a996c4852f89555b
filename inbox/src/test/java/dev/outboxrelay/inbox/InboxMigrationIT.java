package dev.outboxrelay.inbox;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.schema.MigrationResult;
import dev.outboxrelay.schema.Migrator;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.PostgresDatabaseExtension;
import dev.outboxrelay.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The inbox table's migration: idempotent, safe to race, recorded with the outbox's, scriptable for a DBA. */
class InboxMigrationIT {

    @RegisterExtension
    static PostgresDatabaseExtension db = new PostgresDatabaseExtension();

    @Test
    void migrationIsIdempotent() throws SQLException {
        Migrator migrator = Inbox.migrator("idem.inbox");
        try (Connection c = db.database().connect()) {
            assertThat(migrator.currentVersion(c)).isZero();
            MigrationResult first = migrator.migrate(c);
            MigrationResult second = migrator.migrate(c);

            assertThat(first.versionBefore()).isZero();
            assertThat(first.versionAfter()).isEqualTo(1);
            assertThat(first.applied()).extracting(m -> m.description()).containsExactly("create inbox table");
            assertThat(second.alreadyCurrent()).isTrue();
            assertThat(second.versionAfter()).isEqualTo(1);
            assertThat(migrator.currentVersion(c)).isEqualTo(1);
        }
        assertThat(db.database().queryString("SELECT string_agg(target || '@' || version, ',') FROM idem."
                + OutboxSchema.HISTORY_TABLE)).isEqualTo("inbox:idem.inbox@1");
    }

    @Test
    void concurrentMigrationsApplyTheStepOnce() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<MigrationResult>> results = new ArrayList<>();
            for (int i = 0; i < 4; i++) {
                results.add(pool.submit(() -> {
                    try (Connection c = db.database().connect()) {
                        return Inbox.migrator("racing.inbox").migrate(c);
                    }
                }));
            }
            int applied = 0;
            for (Future<MigrationResult> r : results) {
                applied += r.get(60, TimeUnit.SECONDS).applied().size();
            }
            assertThat(applied).isEqualTo(1);
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
    }

    @Test
    void sharesTheHistoryTableWithTheOutboxOfTheSameSchema() throws SQLException {
        try (Connection c = db.database().connect()) {
            OutboxSchema.migrator(OutboxTable.parse("shared.outbox"), "shared_pub").migrate(c);
            Inbox.forTable("shared.inbox", "billing").migrator().migrate(c);
        }
        assertThat(db.database().queryString("SELECT string_agg(DISTINCT target, ',' ORDER BY target) FROM shared."
                + OutboxSchema.HISTORY_TABLE)).isEqualTo("inbox:shared.inbox,outbox:shared.outbox");
    }

    @Test
    void scriptForADbaBuildsAWorkingInbox() throws SQLException {
        String script = Inbox.migrator("by_hand.inbox").script();
        assertThat(script)
                .contains("CREATE TABLE \"by_hand\".\"inbox\"")
                .contains("PRIMARY KEY (consumer, event_id)")
                .contains("CREATE INDEX \"inbox_expires_at_idx\"")
                .contains("'inbox:by_hand.inbox', 1, 'create inbox table'");

        TestDatabase database = db.database();
        database.execute(script);
        try (Connection c = database.connect()) {
            // The migrator recognises the hand-applied script as current.
            assertThat(Inbox.migrator("by_hand.inbox").migrate(c).alreadyCurrent()).isTrue();
            c.setAutoCommit(false);
            assertThat(Inbox.forTable("by_hand.inbox", "dba").process(c, "e-1", conn -> null).ran()).isTrue();
            c.commit();
        }
    }

    @Test
    void tableColumnsAreWhatTheConsumerGuideDocuments() throws SQLException {
        TestDatabase database = db.database();
        try (Connection c = database.connect()) {
            Inbox.migrator("cols.inbox").migrate(c);
        }
        assertThat(database.queryString("SELECT string_agg(column_name || ' ' || data_type || ' '"
                + " || is_nullable, ', ' ORDER BY ordinal_position) FROM information_schema.columns"
                + " WHERE table_schema = 'cols' AND table_name = 'inbox'"))
                .isEqualTo("consumer text NO, event_id text NO, processed_at timestamp with time zone NO,"
                        + " expires_at timestamp with time zone NO, result bytea YES");
    }
}
