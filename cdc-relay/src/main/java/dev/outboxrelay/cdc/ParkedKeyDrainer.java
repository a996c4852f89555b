package dev.outboxrelay.cdc;

import dev.outboxrelay.core.delivery.Backoff;
import dev.outboxrelay.core.delivery.DeliveryPipeline;
import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import dev.outboxrelay.core.delivery.KeyParking;
import dev.outboxrelay.core.delivery.KeyParking.Hold;
import dev.outboxrelay.core.delivery.KeyParking.Reason;
import dev.outboxrelay.core.delivery.OnPoison;
import dev.outboxrelay.core.delivery.RetryHolds;
import dev.outboxrelay.schema.OutboxSql;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes the events of parked keys from the outbox table, so that the CDC stream never waits for one key
 * (docs/cdc-mode.md, "One bad key does not hold back the stream"). For each key whose hold is due it reads the
 * key's unsent live rows in {@code seq} order (with {@code --on-poison block}, only those before a live dead
 * letter), hands them to the {@link DeliveryPipeline} and waits until they are settled; when a look finds none, it
 * releases the key — unless the stream parked an event of it since the look ({@link KeyParking}), which the
 * next look then finds. With {@code block}, a key whose dead letter is still live stays parked and is looked at
 * again every two seconds, so {@code dead-letters retry} or {@code discard} releases it without a restart.
 */
final class ParkedKeyDrainer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ParkedKeyDrainer.class);
    private static final long IDLE_MILLIS = 100;
    private static final Duration SETTLE_WAIT = Duration.ofSeconds(1);

    private final OutboxTable table;
    private final Database database;
    private final KeyParking parking;
    private final DeliveryPipeline pipeline;
    private final OnPoison onPoison;
    private final int pageSize;
    private final long pageBytes;
    private final String fetchSql;
    private final String liveDeadLetterSql;
    private final String deadLetteredKeysSql;
    private final Backoff databaseBackoff = Backoff.exponential(Duration.ofMillis(200), Duration.ofSeconds(10));
    private final Thread thread;
    private volatile boolean closed;
    private Connection connection;

    ParkedKeyDrainer(OutboxTable table, Database database, KeyParking parking, DeliveryPipeline pipeline, OnPoison onPoison,
                     int pageSize, long pageBytes) {
        this.table = table;
        this.database = database;
        this.parking = parking;
        this.pipeline = pipeline;
        this.onPoison = onPoison;
        this.pageSize = pageSize;
        this.pageBytes = pageBytes;
        OutboxSql sql = OutboxSql.forTable(table);
        // Bounded by the key's live dead letter (with block): the scan of the unsent rows' index stops there.
        this.fetchSql = sql.unsentOfKeyBefore();
        // Through the live dead letters' index, so a key waiting behind one costs one index probe per look.
        this.liveDeadLetterSql = sql.firstLiveDeadLetterOfKey();
        this.deadLetteredKeysSql = sql.keysWithLiveDeadLetters();
        this.thread = new Thread(this::run, "outbox-relay-cdc-parked");
        this.thread.setDaemon(true);
    }

    /**
     * With {@code --on-poison block}, parks every key that has a live dead letter, so that neither the rescan nor
     * the stream publishes its later events; called before each rescan. Returns how many keys it parked.
     */
    int parkDeadLetteredKeys(Connection c) throws SQLException {
        if (onPoison != OnPoison.BLOCK) {
            return 0;
        }
        int n = 0;
        try (PreparedStatement ps = c.prepareStatement(deadLetteredKeysSql); ResultSet rs = ps.executeQuery()) {
            while (rs.next()) {
                parking.park(rs.getString(1), Reason.DEAD_LETTER, "a live dead letter");
                n++;
            }
        }
        if (n > 0) {
            LOG.info("{} key(s) of {} wait behind a dead letter (--on-poison block)", n, table);
        }
        return n;
    }

    /**
     * Parks every key the table holds for a retry ({@link RetryHolds}), so that neither the rescan nor the stream
     * publishes it before its backoff ends; called before each rescan.
     */
    int parkHeldKeys(Connection c) throws SQLException {
        int n;
        try {
            n = RetryHolds.restore(c, table, parking);
        } catch (SQLException e) {
            if ("42703".equals(e.getSQLState())) {
                throw new CdcSetupException("table " + table + " lacks column retry_at of the current schema: run"
                        + " migrate with this relay's version (schema version 6)");
            }
            throw e;
        }
        if (n > 0) {
            LOG.info("{} key(s) of {} wait for a retry, as recorded in the table", n, table);
        }
        return n;
    }

    void start() {
        thread.start();
    }

    private void run() {
        while (!closed) {
            try {
                List<Hold> due = parking.due();
                if (due.isEmpty()) {
                    Thread.sleep(IDLE_MILLIS);
                    continue;
                }
                for (Hold hold : due) {
                    if (closed) {
                        return;
                    }
                    drain(hold);
                }
                databaseBackoff.reset();
            } catch (InterruptedException e) {
                return;
            } catch (SQLException | RuntimeException e) {
                if (closed) {
                    return;
                }
                closeConnection();
                long delay = databaseBackoff.nextDelayMillis();
                LOG.warn("Cannot publish the events of parked keys from {} ({}); retrying in {} ms", table,
                        e.toString(), delay);
                try {
                    Thread.sleep(delay);
                } catch (InterruptedException stop) {
                    return;
                }
            }
        }
    }

    /** One look at a due key: publish what waits, or release the key, or keep it parked behind its dead letter. */
    private void drain(Hold hold) throws SQLException, InterruptedException {
        String key = hold.key();
        DeadLetter deadLetter = onPoison == OnPoison.BLOCK ? liveDeadLetter(key) : null;
        List<Item> rows = fetch(key, deadLetter == null ? Long.MAX_VALUE : deadLetter.seq());
        if (rows.isEmpty()) {
            if (deadLetter != null) {
                parking.recheckLater(key, Reason.DEAD_LETTER, "event " + deadLetter.id());
            } else if (parking.releaseIfUnchanged(key, hold.parkedEvents())) {
                LOG.debug("Key {} released: nothing of it waits in {}", key, table);
            }
            return;
        }
        LOG.debug("Publishing {} parked event(s) of key {} ({}) from {}", rows.size(), key, hold.reason(), table);
        CompletableFuture<Void> settled = new CompletableFuture<>();
        pipeline.submit(rows, true, last -> settled.complete(null));
        while (!closed) {
            try {
                settled.get(SETTLE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
                return;
            } catch (TimeoutException stillSettling) {
                // Kafka is slow or down: the pipeline retries; keep waiting unless closing.
            } catch (ExecutionException e) {
                return;
            }
        }
    }

    /** The key's unsent live rows below {@code beforeSeq}, in seq order, at most a page (rows and bytes). */
    private List<Item> fetch(String key, long beforeSeq) throws SQLException {
        List<Item> rows = new ArrayList<>();
        try (PreparedStatement ps = connection().prepareStatement(fetchSql)) {
            ps.setString(1, key);
            ps.setLong(2, beforeSeq);
            ps.setInt(3, pageSize);
            ps.setLong(4, pageBytes);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    rows.add(Rescanner.item(rs, table));
                }
            }
        }
        return rows;
    }

    /** The key's oldest live dead letter. */
    private record DeadLetter(String id, long seq) {
    }

    private DeadLetter liveDeadLetter(String key) throws SQLException {
        try (PreparedStatement ps = connection().prepareStatement(liveDeadLetterSql)) {
            ps.setString(1, key);
            try (ResultSet rs = ps.executeQuery()) {
                return rs.next() ? new DeadLetter(rs.getString(1), rs.getLong(2)) : null;
            }
        }
    }

    private Connection connection() throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = database.open();
            connection.setAutoCommit(true);
        }
        return connection;
    }

    private void closeConnection() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException ignored) {
                // already broken
            }
            connection = null;
        }
    }

    /** Stops looking at parked keys; what they hold stays unsent in the table for the next start. Idempotent. */
    @Override
    public void close() {
        closed = true;
        thread.interrupt();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(10));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        closeConnection();
    }
}
