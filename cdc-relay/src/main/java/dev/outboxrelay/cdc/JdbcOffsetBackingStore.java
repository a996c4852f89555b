package dev.outboxrelay.cdc;

import java.nio.ByteBuffer;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Future;
import org.apache.kafka.connect.errors.ConnectException;
import org.apache.kafka.connect.runtime.WorkerConfig;
import org.apache.kafka.connect.storage.OffsetBackingStore;
import org.apache.kafka.connect.util.Callback;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka Connect offset store over the relay-owned table {@code <outbox>_cdc_offsets}, one set of rows per relay
 * name. Like Kafka's memory and file stores it serves reads from memory; unlike them, every {@link #set} is
 * written to the database before its future completes, so a confirmed offset survives a crash of the relay.
 *
 * <p>Public only because Debezium instantiates it by class name; the relay registers the table and connection
 * under the engine name before starting the engine. Not for other use.
 */
public final class JdbcOffsetBackingStore implements OffsetBackingStore {

    private static final Logger LOG = LoggerFactory.getLogger(JdbcOffsetBackingStore.class);
    private static final Map<String, OffsetTable> REGISTRY = new ConcurrentHashMap<>();

    private final Map<ByteBuffer, ByteBuffer> data = new ConcurrentHashMap<>();
    private OffsetTable table;
    private Connection connection;

    /** Where one relay's offsets live: its table, relay name and how to connect. */
    record OffsetTable(String quotedTable, String relayName, Database database) {

        boolean hasOffsets() throws SQLException {
            try (Connection c = database.open();
                 PreparedStatement ps = c.prepareStatement("SELECT 1 FROM " + quotedTable + " WHERE relay_name = ?")) {
                ps.setString(1, relayName);
                try (ResultSet rs = ps.executeQuery()) {
                    return rs.next();
                }
            }
        }

        void clear() throws SQLException {
            try (Connection c = database.open();
                 PreparedStatement ps = c.prepareStatement("DELETE FROM " + quotedTable + " WHERE relay_name = ?")) {
                ps.setString(1, relayName);
                ps.executeUpdate();
            }
        }
    }

    /** Makes {@code table} the store of the engine named {@code engineName} (the relay name). */
    static void register(String engineName, OffsetTable table) {
        REGISTRY.put(engineName, table);
    }

    /** Required by Debezium's reflective instantiation. */
    public JdbcOffsetBackingStore() {
    }

    @Override
    public void configure(WorkerConfig config) {
        String name = config.originalsStrings().get("name");
        this.table = name == null ? null : REGISTRY.get(name);
        if (table == null) {
            throw new ConnectException("no outbox-relay offset table registered for engine '" + name + "'");
        }
    }

    @Override
    public synchronized void start() {
        try {
            connection = table.database().open();
            try (PreparedStatement ps = connection.prepareStatement(
                    "SELECT offset_key, offset_value FROM " + table.quotedTable() + " WHERE relay_name = ?")) {
                ps.setString(1, table.relayName());
                try (ResultSet rs = ps.executeQuery()) {
                    while (rs.next()) {
                        byte[] value = rs.getBytes(2);
                        if (value != null) {
                            data.put(ByteBuffer.wrap(rs.getBytes(1)), ByteBuffer.wrap(value));
                        }
                    }
                }
            }
            LOG.info("Loaded {} CDC offset(s) of relay '{}' from {}", data.size(), table.relayName(),
                    table.quotedTable());
        } catch (SQLException e) {
            throw new ConnectException("cannot read CDC offsets from " + table.quotedTable() + ": " + e.getMessage()
                    + " (run `migrate` to create the table)", e);
        }
    }

    @Override
    public synchronized void stop() {
        if (connection != null) {
            try {
                connection.close();
            } catch (SQLException e) {
                LOG.debug("Closing the offsets connection failed", e);
            }
            connection = null;
        }
    }

    @Override
    public Future<Map<ByteBuffer, ByteBuffer>> get(Collection<ByteBuffer> keys) {
        Map<ByteBuffer, ByteBuffer> result = new HashMap<>();
        for (ByteBuffer key : keys) {
            result.put(key, data.get(key));
        }
        return CompletableFuture.completedFuture(result);
    }

    /** Writes in the caller's thread: the engine waits for this future anyway before confirming the LSN. */
    @Override
    public synchronized Future<Void> set(Map<ByteBuffer, ByteBuffer> values, Callback<Void> callback) {
        try {
            write(values);
            values.forEach((k, v) -> {
                if (v == null) {
                    data.remove(k);
                } else {
                    data.put(k, v);
                }
            });
            if (callback != null) {
                callback.onCompletion(null, null);
            }
            return CompletableFuture.completedFuture(null);
        } catch (SQLException e) {
            stop(); // a broken connection is reopened by the next write
            ConnectException error = new ConnectException("cannot store CDC offsets: " + e.getMessage(), e);
            if (callback != null) {
                callback.onCompletion(error, null);
            }
            return CompletableFuture.failedFuture(error);
        }
    }

    private void write(Map<ByteBuffer, ByteBuffer> values) throws SQLException {
        if (connection == null || connection.isClosed()) {
            connection = table.database().open();
        }
        connection.setAutoCommit(false);
        try (PreparedStatement ps = connection.prepareStatement("INSERT INTO " + table.quotedTable()
                + " (relay_name, offset_key, offset_value) VALUES (?, ?, ?) ON CONFLICT (relay_name, offset_key)"
                + " DO UPDATE SET offset_value = EXCLUDED.offset_value, updated_at = now()")) {
            for (Map.Entry<ByteBuffer, ByteBuffer> e : values.entrySet()) {
                ps.setString(1, table.relayName());
                ps.setBytes(2, bytes(e.getKey()));
                ps.setBytes(3, e.getValue() == null ? null : bytes(e.getValue()));
                ps.addBatch();
            }
            ps.executeBatch();
            connection.commit();
        } catch (SQLException e) {
            try {
                connection.rollback();
            } catch (SQLException ignored) {
                e.addSuppressed(ignored);
            }
            throw e;
        } finally {
            if (!connection.isClosed()) {
                connection.setAutoCommit(true);
            }
        }
    }

    private static byte[] bytes(ByteBuffer buffer) {
        ByteBuffer b = buffer.duplicate();
        byte[] out = new byte[b.remaining()];
        b.get(out);
        return out;
    }

    @Override
    public Set<Map<String, Object>> connectorPartitions(String connectorName) {
        // Only used by Connect's offsets REST API, which the embedded engine does not expose.
        return Set.of();
    }
}
