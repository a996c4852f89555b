package dev.outboxrelay.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.PostgresDatabaseExtension;
import dev.outboxrelay.testkit.TestDatabase;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.postgresql.PGConnection;

/**
 * Two deliveries of one event racing each other in READ COMMITTED (e.g. the old and the new owner of a
 * partition during a rebalance). The first holds its transaction open after its work ran; the second must then
 * block on the inbox's primary key, and its outcome depends on how the first ends.
 */
class InboxRaceIT {

    @RegisterExtension
    static PostgresDatabaseExtension db = new PostgresDatabaseExtension();

    private static DataSource dataSource;
    private static Inbox inbox;

    private final AtomicInteger invocations = new AtomicInteger();
    private ExecutorService second;

    @BeforeAll
    static void migrate() throws SQLException {
        dataSource = InboxIT.dataSource(db.database());
        inbox = Inbox.forTable("public.inbox", "racer");
        try (Connection c = dataSource.getConnection()) {
            inbox.migrator().migrate(c);
        }
        db.database().execute("CREATE TABLE work_log (event_id text NOT NULL)");
    }

    @BeforeEach
    void startSecondThread() {
        second = Executors.newSingleThreadExecutor();
    }

    @AfterEach
    void stopSecondThread() throws InterruptedException {
        second.shutdownNow();
        assertThat(second.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
    }

    private Inbox.Work<Void, SQLException> work(String eventId) {
        return c -> {
            invocations.incrementAndGet();
            try (Statement st = c.createStatement()) {
                st.executeUpdate("INSERT INTO work_log (event_id) VALUES ('" + eventId + "')");
            }
            return null;
        };
    }

    @Test
    void secondDeliveryWaitsForTheFirstAndSkipsTheWorkWhenTheFirstCommits() throws Exception {
        String id = UUID.randomUUID().toString();
        try (Connection a = transaction(); Connection b = transaction()) {
            assertThat(inbox.process(a, id, work(id)).ran()).isTrue();

            Future<Outcome<Void>> racer = second.submit(() -> inbox.process(b, id, work(id)));
            awaitBlockedOnLock(b);
            a.commit();

            Outcome<Void> outcome = racer.get(30, TimeUnit.SECONDS);
            b.commit();
            assertThat(outcome.ran()).isFalse();
        }
        assertThat(invocations).hasValue(1);
        assertThat(db.database().queryLong("SELECT count(*) FROM work_log WHERE event_id = '" + id + "'")).isEqualTo(1);
    }

    @Test
    void secondDeliveryRunsTheWorkWhenTheFirstRollsBack() throws Exception {
        String id = UUID.randomUUID().toString();
        try (Connection a = transaction(); Connection b = transaction()) {
            assertThat(inbox.process(a, id, work(id)).ran()).isTrue();

            Future<Outcome<Void>> racer = second.submit(() -> inbox.process(b, id, work(id)));
            awaitBlockedOnLock(b);
            a.rollback();

            Outcome<Void> outcome = racer.get(30, TimeUnit.SECONDS);
            b.commit();
            assertThat(outcome.ran()).isTrue();
        }
        assertThat(invocations).hasValue(2);
        assertThat(db.database().queryLong("SELECT count(*) FROM work_log WHERE event_id = '" + id + "'")).isEqualTo(1);
        assertThat(db.database().queryLong("SELECT count(*) FROM inbox WHERE event_id = '" + id + "'")).isEqualTo(1);
    }

    @Test
    void manyThreadsRacingOnOneEventThroughTheDataSourceRunTheWorkOnce() throws Exception {
        String id = UUID.randomUUID().toString();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Outcome<Void>>> futures = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                futures.add(pool.submit(() -> inbox.process(dataSource, id, work(id))));
            }
            int ran = 0;
            for (Future<Outcome<Void>> f : futures) {
                ran += f.get(60, TimeUnit.SECONDS).ran() ? 1 : 0;
            }
            assertThat(ran).isEqualTo(1);
        } finally {
            pool.shutdownNow();
            assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(invocations).hasValue(1);
        assertThat(db.database().queryLong("SELECT count(*) FROM work_log WHERE event_id = '" + id + "'")).isEqualTo(1);
    }

    private static Connection transaction() throws SQLException {
        Connection c = dataSource.getConnection();
        c.setAutoCommit(false);
        c.setTransactionIsolation(Connection.TRANSACTION_READ_COMMITTED);
        return c;
    }

    /** Waits until {@code c}'s backend is waiting for a lock: proof that the race actually happened. */
    private static void awaitBlockedOnLock(Connection c) throws SQLException {
        int pid = c.unwrap(PGConnection.class).getBackendPID();
        TestDatabase database = db.database();
        await().atMost(Duration.ofSeconds(30)).until(() -> "Lock".equals(database.queryString(
                "SELECT coalesce(wait_event_type, 'none') FROM pg_stat_activity WHERE pid = " + pid)));
    }
}
