package dev.outboxrelay.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxrelay.testkit.PostgresDatabaseExtension;
import dev.outboxrelay.testkit.TestDatabase;
import java.io.IOException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.ds.PGSimpleDataSource;

/** The dedupe contract against a real PostgreSQL: work runs once per (consumer, event id), atomically. */
class InboxIT {

    @RegisterExtension
    static PostgresDatabaseExtension db = new PostgresDatabaseExtension();

    private static DataSource dataSource;
    private static Inbox inbox;

    /** What the work did, committed with it: one row per time the work ran and committed. */
    private final AtomicInteger invocations = new AtomicInteger();

    @BeforeAll
    static void migrate() throws SQLException {
        TestDatabase database = db.database();
        dataSource = dataSource(database);
        inbox = Inbox.forTable("public.inbox", "billing");
        try (Connection c = dataSource.getConnection()) {
            inbox.migrator().migrate(c);
        }
        database.execute("CREATE TABLE work_log (consumer text NOT NULL, event_id text NOT NULL)");
    }

    static DataSource dataSource(TestDatabase database) {
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(database.jdbcUrl());
        ds.setUser(database.superUser());
        ds.setPassword(database.superPassword());
        return ds;
    }

    /** Business work with a visible, non-idempotent side effect in the same transaction. */
    private <T> Inbox.Work<T, SQLException> logWork(Inbox in, String eventId, T result) {
        return c -> {
            invocations.incrementAndGet();
            try (PreparedStatement ps = c.prepareStatement("INSERT INTO work_log (consumer, event_id) VALUES (?, ?)")) {
                ps.setString(1, in.consumer());
                ps.setString(2, eventId);
                ps.executeUpdate();
            }
            return result;
        };
    }

    private static long workLogged(String eventId) {
        return db.database().queryLong("SELECT count(*) FROM work_log WHERE event_id = '" + eventId + "'");
    }

    private static long entries(String eventId) {
        return db.database().queryLong("SELECT count(*) FROM inbox WHERE event_id = '" + eventId + "'");
    }

    @Test
    void sameEventDeliveredTwiceRunsTheWorkOnce() throws SQLException {
        String id = UUID.randomUUID().toString();

        Outcome<Void> first = inbox.process(dataSource, id, logWork(inbox, id, null));
        Outcome<Void> second = inbox.process(dataSource, id, logWork(inbox, id, null));

        assertThat(first.ran()).isTrue();
        assertThat(second.ran()).isFalse();
        assertThat(second.duplicate()).isTrue();
        assertThat(invocations).hasValue(1);
        assertThat(workLogged(id)).isEqualTo(1);
        assertThat(entries(id)).isEqualTo(1);
    }

    @Test
    void duplicateInsideTheCallersOwnTransactionIsSkippedToo() throws SQLException {
        String a = UUID.randomUUID().toString();
        String b = UUID.randomUUID().toString();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            assertThat(inbox.process(c, a, logWork(inbox, a, null)).ran()).isTrue();
            assertThat(inbox.process(c, b, logWork(inbox, b, null)).ran()).isTrue();
            assertThat(inbox.process(c, a, logWork(inbox, a, null)).ran()).isFalse();
            // Not visible outside before the caller commits: the caller owns the transaction.
            assertThat(entries(a)).isZero();
            c.commit();
        }
        assertThat(workLogged(a)).isEqualTo(1);
        assertThat(workLogged(b)).isEqualTo(1);
        assertThat(inbox.process(dataSource, b, logWork(inbox, b, null)).ran()).isFalse();
        assertThat(invocations).hasValue(2);
    }

    @Test
    void eachConsumerProcessesTheSameEventOnce() throws SQLException {
        String id = UUID.randomUUID().toString();
        Inbox shipping = Inbox.forTable("inbox", "shipping");

        assertThat(inbox.process(dataSource, id, logWork(inbox, id, null)).ran()).isTrue();
        assertThat(shipping.process(dataSource, id, logWork(shipping, id, null)).ran()).isTrue();
        assertThat(shipping.process(dataSource, id, logWork(shipping, id, null)).ran()).isFalse();

        assertThat(db.database().queryString("SELECT string_agg(consumer, ',' ORDER BY consumer) FROM inbox"
                + " WHERE event_id = '" + id + "'")).isEqualTo("billing,shipping");
        assertThat(workLogged(id)).isEqualTo(2);
    }

    @Test
    void failedWorkLeavesNoEntrySoTheRetryRunsIt() throws Exception {
        String id = UUID.randomUUID().toString();
        Inbox.Work<Void, Exception> failing = c -> {
            logWork(inbox, id, null).run(c);
            throw new IOException("downstream unavailable");
        };

        assertThatThrownBy(() -> inbox.process(dataSource, id, failing))
                .isInstanceOf(IOException.class).hasMessage("downstream unavailable");
        assertThat(entries(id)).isZero();
        assertThat(workLogged(id)).isZero();

        Outcome<Void> retry = inbox.process(dataSource, id, logWork(inbox, id, null));
        assertThat(retry.ran()).isTrue();
        assertThat(invocations).hasValue(2);
        assertThat(workLogged(id)).isEqualTo(1);
        assertThat(entries(id)).isEqualTo(1);
    }

    @Test
    void failedWorkInTheCallersTransactionIsForgottenWhenTheCallerRollsBack() throws Exception {
        String id = UUID.randomUUID().toString();
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> inbox.process(c, id, conn -> {
                logWork(inbox, id, null).run(conn);
                throw new IllegalStateException("business rule violated");
            })).isInstanceOf(IllegalStateException.class).hasMessage("business rule violated");
            c.rollback();

            assertThat(inbox.process(c, id, logWork(inbox, id, null)).ran()).isTrue();
            c.commit();
        }
        assertThat(invocations).hasValue(2);
        assertThat(workLogged(id)).isEqualTo(1);
    }

    @Test
    void storedResultIsReturnedForTheDuplicateWithoutRunningTheWork() throws SQLException {
        String id = UUID.randomUUID().toString();
        ResultCodec<String> codec = ResultCodec.utf8();

        Outcome<String> first = inbox.process(dataSource, id, codec, logWork(inbox, id, "{\"receipt\":\"r-1\"}"));
        Outcome<String> again = inbox.process(dataSource, id, codec, logWork(inbox, id, "{\"receipt\":\"r-2\"}"));

        assertThat(first.ran()).isTrue();
        assertThat(first.firstResult()).contains("{\"receipt\":\"r-1\"}");
        assertThat(again.ran()).isFalse();
        assertThat(again.firstResult()).contains("{\"receipt\":\"r-1\"}");
        assertThat(invocations).hasValue(1);
    }

    @Test
    void duplicateHasNoFirstResultWhenNoneWasStored() throws SQLException {
        String withoutCodec = UUID.randomUUID().toString();
        String nullResult = UUID.randomUUID().toString();

        assertThat(inbox.process(dataSource, withoutCodec, logWork(inbox, withoutCodec, "kept in memory only"))
                .firstResult()).contains("kept in memory only");
        assertThat(inbox.process(dataSource, withoutCodec, ResultCodec.utf8(), logWork(inbox, withoutCodec, "x"))
                .firstResult()).isEmpty();

        assertThat(inbox.process(dataSource, nullResult, ResultCodec.utf8(), logWork(inbox, nullResult, null))
                .ran()).isTrue();
        Outcome<String> dup = inbox.process(dataSource, nullResult, ResultCodec.utf8(), logWork(inbox, nullResult, "y"));
        assertThat(dup.ran()).isFalse();
        assertThat(dup.firstResult()).isEmpty();
        assertThat(db.database().queryString("SELECT result IS NULL FROM inbox WHERE event_id = '" + nullResult + "'"))
                .isEqualTo("t");
    }

    @Test
    void entryExpiresAfterTheTtlMeasuredByTheDatabaseClock() throws SQLException {
        String id = UUID.randomUUID().toString();
        Inbox shortLived = Inbox.builder().consumer("ttl-check").ttl(Duration.ofHours(36)).build();

        shortLived.process(dataSource, id, logWork(shortLived, id, null));

        assertThat(db.database().queryString("SELECT (expires_at - processed_at)::text FROM inbox"
                + " WHERE consumer = 'ttl-check' AND event_id = '" + id + "'")).isEqualTo("1 day 12:00:00");
        assertThat(shortLived.ttl()).isEqualTo(Duration.ofHours(36));
        assertThat(shortLived.table()).isEqualTo(Inbox.DEFAULT_TABLE);
    }

    @Test
    void expiredButNotYetPurgedEntryStillDeduplicates() throws SQLException {
        String id = UUID.randomUUID().toString();
        Inbox expiring = Inbox.forTable("public.inbox", "expired-not-purged");
        expiring.process(dataSource, id, logWork(expiring, id, null));
        db.database().execute("UPDATE inbox SET expires_at = now() - interval '1 hour'"
                + " WHERE consumer = 'expired-not-purged'");

        assertThat(expiring.process(dataSource, id, logWork(expiring, id, null)).ran()).isFalse();
        assertThat(invocations).hasValue(1);
    }

    @Test
    void processRefusesAConnectionInAutoCommitModeAndRecordsNothing() throws SQLException {
        String id = UUID.randomUUID().toString();
        try (Connection c = dataSource.getConnection()) {
            assertThatThrownBy(() -> inbox.process(c, id, logWork(inbox, id, null)))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageStartingWith("Inbox.process(Connection, ...) needs a transaction (auto-commit off)");
        }
        assertThat(invocations).hasValue(0);
        assertThat(entries(id)).isZero();
    }

    @Test
    void missingTableIsExplained() throws SQLException {
        Inbox nowhere = Inbox.forTable("not_migrated.inbox", "billing");
        try (Connection c = dataSource.getConnection()) {
            c.setAutoCommit(false);
            assertThatThrownBy(() -> nowhere.process(c, "e-1", logWork(nowhere, "e-1", null)))
                    .isInstanceOf(SQLException.class)
                    .hasMessage("inbox table not_migrated.inbox does not exist: create it with"
                            + " Inbox.migrator(\"not_migrated.inbox\").migrate(connection), or have a DBA run"
                            + " Inbox.migrator(\"not_migrated.inbox\").script()")
                    .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("42P01"));
            c.rollback();
        }
        assertThatThrownBy(() -> nowhere.purgeExpired(dataSource, 10))
                .isInstanceOf(SQLException.class).hasMessageStartingWith("inbox table not_migrated.inbox does not exist");
        assertThat(invocations).hasValue(0);
    }
}
