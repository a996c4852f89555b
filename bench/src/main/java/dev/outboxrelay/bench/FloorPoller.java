package dev.outboxrelay.bench;

import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.postgresql.PGConnection;

/**
 * The poll floor: what a poller cannot avoid. Woken by the outbox's NOTIFY, it reads the rows after the last seq it
 * saw (the columns the relay reads, 1,000 at a time) and hands each to a producer with the relay's settings,
 * without waiting for acks, without marking, without a commit horizon. Not a relay: it forgets its position on
 * restart and would skip a late-committing lower seq, so the bench only writes to it with one writer at a time
 * (commit order is seq order) or while it is paused.
 */
final class FloorPoller extends LoopContender {

    static final String NAME = "floor: fetch + producer";

    private static final int LIMIT = 1000;
    private static final String FETCH = "SELECT id, aggregate_type, aggregate_id, event_type, payload, headers,"
            + " created_at, seq FROM outbox WHERE seq > ? AND sent_at IS NULL AND dead_lettered_at IS NULL"
            + " ORDER BY seq LIMIT " + LIMIT; // the predicate of the relay's unsent-rows index, which it then reads

    private final Connection connection;
    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;

    FloorPoller(String jdbcUrl, String user, String password, String bootstrap, String topic) throws SQLException {
        super(NAME);
        this.topic = topic;
        this.connection = DriverManager.getConnection(jdbcUrl, user, password);
        this.producer = new KafkaProducer<>(ProducerSettings.of(bootstrap, Map.of()).producerProperties());
    }

    @Override
    void prepare() throws SQLException {
        try (Statement st = connection.createStatement()) {
            st.execute("LISTEN \"" + OutboxSchema.notifyChannel(OutboxTable.DEFAULT) + "\"");
        }
    }

    @Override
    void loop() throws Exception {
        PGConnection pg = connection.unwrap(PGConnection.class);
        long last = 0;
        try (PreparedStatement fetch = connection.prepareStatement(FETCH)) {
            while (running()) {
                pass();
                pg.getNotifications(); // drop what is pending (without blocking): this fetch sees those rows
                fetch.setLong(1, last);
                int rows = 0;
                try (ResultSet rs = fetch.executeQuery()) {
                    while (rs.next()) {
                        ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic,
                                rs.getString(3).getBytes(StandardCharsets.UTF_8),
                                rs.getString(5).getBytes(StandardCharsets.UTF_8));
                        r.headers().add("id", rs.getString(1).getBytes(StandardCharsets.UTF_8));
                        producer.send(r);
                        last = rs.getLong(8);
                        rows++;
                    }
                }
                if (rows < LIMIT) {
                    pg.getNotifications(100); // returns with the first notification
                }
            }
        }
    }

    @Override
    void release() {
        closeAll(producer, connection);
    }
}
