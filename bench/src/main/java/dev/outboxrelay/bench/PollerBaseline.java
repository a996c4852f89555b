package dev.outboxrelay.bench;

import java.nio.charset.StandardCharsets;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The two polling baselines, written as a competent user would in an afternoon: one thread, one connection,
 * the predicate of the schema's partial index on unsent rows, a Kafka producer with the client's defaults
 * (acks=all and idempotent since Kafka 3), and a 100 ms sleep when the table is empty.
 *
 * <ul>
 *   <li>{@link #naive}: claim one row {@code FOR UPDATE SKIP LOCKED}, {@code send().get()}, mark it, commit.</li>
 *   <li>{@link #batched}: claim 1,000 rows, send them all, wait for every ack, mark them with one
 *       {@code UPDATE … WHERE id = ANY(?)}, commit.</li>
 * </ul>
 */
final class PollerBaseline extends LoopContender {

    static final String NAIVE = "naive poller";
    static final String BATCHED = "batched poller";

    private final int claim;
    private final Connection connection;
    private final KafkaProducer<String, String> producer;
    private final String topic;

    private PollerBaseline(String name, int claim, String jdbcUrl, String user, String password, String bootstrap,
                           String topic) throws SQLException {
        super(name);
        this.claim = claim;
        this.topic = topic;
        this.connection = java.sql.DriverManager.getConnection(jdbcUrl, user, password);
        this.producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
    }

    static PollerBaseline naive(String jdbcUrl, String user, String password, String bootstrap, String topic)
            throws SQLException {
        return new PollerBaseline(NAIVE, 1, jdbcUrl, user, password, bootstrap, topic);
    }

    static PollerBaseline batched(String jdbcUrl, String user, String password, String bootstrap, String topic)
            throws SQLException {
        return new PollerBaseline(BATCHED, 1000, jdbcUrl, user, password, bootstrap, topic);
    }

    @Override
    void prepare() throws SQLException {
        connection.setAutoCommit(false);
    }

    @Override
    void loop() throws Exception {
        try (PreparedStatement select = connection.prepareStatement("SELECT id, aggregate_id, payload::text"
                + " FROM outbox WHERE sent_at IS NULL AND dead_lettered_at IS NULL ORDER BY seq LIMIT " + claim + " FOR UPDATE SKIP LOCKED");
             PreparedStatement markOne = connection.prepareStatement("UPDATE outbox SET sent_at = now() WHERE id = ?");
             PreparedStatement markMany = connection.prepareStatement(
                     "UPDATE outbox SET sent_at = now() WHERE id = ANY(?)")) {
            while (running()) {
                pass();
                List<UUID> ids = new ArrayList<>(claim);
                List<Future<RecordMetadata>> acks = new ArrayList<>(claim);
                try (ResultSet rs = select.executeQuery()) {
                    while (rs.next()) {
                        UUID id = rs.getObject(1, UUID.class);
                        ProducerRecord<String, String> record = new ProducerRecord<>(topic, rs.getString(2),
                                rs.getString(3));
                        record.headers().add("id", id.toString().getBytes(StandardCharsets.UTF_8));
                        ids.add(id);
                        acks.add(producer.send(record));
                        if (claim == 1) {
                            acks.get(0).get(); // the naive version: one round trip per event
                        }
                    }
                }
                for (Future<RecordMetadata> ack : acks) {
                    ack.get();
                }
                if (ids.size() == 1) {
                    markOne.setObject(1, ids.get(0));
                    markOne.executeUpdate();
                } else if (!ids.isEmpty()) {
                    Array array = connection.createArrayOf("uuid", ids.toArray());
                    markMany.setArray(1, array);
                    markMany.executeUpdate();
                }
                connection.commit();
                if (ids.isEmpty()) {
                    Thread.sleep(100);
                }
            }
        }
    }

    @Override
    void release() {
        closeAll(producer, connection);
    }
}
