package dev.outboxrelay.testkit;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.postgresql.core.BaseConnection;
import org.postgresql.core.TransactionState;

/**
 * The superuser connections of one {@link TestDatabase} that its conveniences reuse. A new PostgreSQL session costs
 * about 25 ms of server CPU on the 2-core test machine (fork, authentication, catalog caches), and tests that await a
 * condition ask the database every 10 to 100 ms: with a new session per question, waiting alone kept a core busy.
 *
 * <p>A connection is handed out to one caller at a time and given back only in a clean state (auto-commit, no
 * transaction open, not failed); anything else is closed. One idle longer than {@link #MAX_IDLE_NANOS} is closed by
 * a daemon thread, so databases a test no longer uses do not keep sessions (the servers allow 300). A connection is
 * checked before reuse, so a terminated session or a restarted server costs a new connection, never an error.
 */
final class IdleConnections {

    /** What opens a new connection. */
    interface Opener {
        Connection open() throws SQLException;
    }

    private static final long MAX_IDLE_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final int MAX_IDLE = 4;
    private static final Set<IdleConnections> WITH_IDLE = ConcurrentHashMap.newKeySet();
    private static final ScheduledExecutorService REAPER = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "test-kit-idle-connections");
        t.setDaemon(true);
        return t;
    });

    static {
        REAPER.scheduleWithFixedDelay(() -> WITH_IDLE.forEach(IdleConnections::closeStale), 2, 2, TimeUnit.SECONDS);
    }

    private record Idle(Connection connection, long since) {
    }

    private final Opener opener;
    /** Newest last; guarded by this. */
    private final ArrayDeque<Idle> idle = new ArrayDeque<>();

    IdleConnections(Opener opener) {
        this.opener = opener;
    }

    /** An idle connection that still works, or a new one; give it back with {@link #giveBack}. */
    Connection borrow() throws SQLException {
        while (true) {
            Idle candidate;
            synchronized (this) {
                candidate = idle.pollLast();
            }
            if (candidate == null) {
                return opener.open();
            }
            if (candidate.connection().isValid(2)) {
                return candidate.connection();
            }
            closeQuietly(candidate.connection());
        }
    }

    /** Takes {@code c} back for reuse if it is clean, else closes it; {@code failed}: the caller's SQL failed on it. */
    void giveBack(Connection c, boolean failed) {
        if (failed || !clean(c)) {
            closeQuietly(c);
            return;
        }
        Connection surplus = null;
        synchronized (this) {
            idle.addLast(new Idle(c, System.nanoTime()));
            if (idle.size() > MAX_IDLE) {
                surplus = idle.pollFirst().connection();
            }
        }
        WITH_IDLE.add(this);
        if (surplus != null) {
            closeQuietly(surplus);
        }
    }

    /** Closes every idle connection, e.g. before the database is dropped. */
    void closeAll() {
        ArrayDeque<Idle> all;
        synchronized (this) {
            all = new ArrayDeque<>(idle);
            idle.clear();
        }
        WITH_IDLE.remove(this);
        all.forEach(i -> closeQuietly(i.connection()));
    }

    private void closeStale() {
        long now = System.nanoTime();
        ArrayDeque<Idle> stale = new ArrayDeque<>();
        synchronized (this) {
            while (!idle.isEmpty() && now - idle.peekFirst().since() > MAX_IDLE_NANOS) {
                stale.add(idle.pollFirst());
            }
            if (idle.isEmpty()) {
                WITH_IDLE.remove(this);
            }
        }
        stale.forEach(i -> closeQuietly(i.connection()));
    }

    private static boolean clean(Connection c) {
        try {
            return !c.isClosed() && c.getAutoCommit()
                    && c.unwrap(BaseConnection.class).getTransactionState() == TransactionState.IDLE;
        } catch (SQLException e) {
            return false;
        }
    }

    private static void closeQuietly(Connection c) {
        try {
            c.close();
        } catch (SQLException e) {
            // a broken connection: nothing to give back
        }
    }
}
