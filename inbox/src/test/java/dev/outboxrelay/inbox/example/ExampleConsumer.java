package dev.outboxrelay.inbox.example;

import dev.outboxrelay.inbox.Inbox;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import javax.sql.DataSource;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.postgresql.ds.PGSimpleDataSource;

/**
 * A complete consumer of outbox-relay events that processes each event effectively once: the example of
 * {@code docs/consumer-guide.md}, compiled and tested with the inbox module so that it cannot rot.
 *
 * <p>The business work counts events per aggregate, which is deliberately <em>not</em> idempotent: without the
 * inbox, every redelivery would count twice. The order of steps is what matters:
 * <ol>
 *   <li>poll with {@code enable.auto.commit=false}, so Kafka never marks a record consumed on its own;</li>
 *   <li>for each record, read the event id from header {@code id} and let the inbox run the work in a
 *       database transaction, skipping ids this consumer already processed;</li>
 *   <li>only after those transactions committed, commit the offsets to Kafka.</li>
 * </ol>
 * A crash between 2 and 3 redelivers records whose work already committed; the inbox skips them.
 *
 * <p>Run: {@code java ... ExampleConsumer <bootstrap-servers> <topic> <jdbc-url>} with the database user and
 * password in {@code PGUSER} / {@code PGPASSWORD} (never on the command line, where {@code ps} shows them).
 */
public final class ExampleConsumer implements AutoCloseable {

    /** The consumer group, also the inbox's consumer name: one dedupe scope per logical consumer. */
    static final String GROUP = "example-consumer";
    private static final Duration PURGE_EVERY = Duration.ofHours(1);
    private static final int PURGE_BATCH = 1_000;

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final DataSource dataSource;
    private final Inbox inbox;
    private long recordsRead;

    /** A consumer of {@code topic} in group {@value #GROUP}, writing to {@code dataSource}. */
    public ExampleConsumer(String bootstrapServers, String topic, DataSource dataSource) {
        this.consumer = new KafkaConsumer<>(config(bootstrapServers));
        this.dataSource = dataSource;
        // TTL: longer than the topic's retention, so no replay can outlive its inbox entry.
        this.inbox = Inbox.builder().table("public.inbox").consumer(GROUP).ttl(Duration.ofDays(14)).build();
        consumer.subscribe(List.of(topic));
    }

    static Properties config(String bootstrapServers) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        // The one setting that matters: offsets are committed by us, after the database commit.
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return p;
    }

    /** Creates the inbox table and the business table if missing (a real service would use its own migrations). */
    public void createTables() throws SQLException {
        try (Connection c = dataSource.getConnection(); Statement st = c.createStatement()) {
            inbox.migrator().migrate(c);
            st.execute("CREATE TABLE IF NOT EXISTS events_per_aggregate"
                    + " (aggregate_id text PRIMARY KEY, events bigint NOT NULL)");
        }
    }

    /**
     * One poll: processes every record, then commits the offsets. Throws, without committing offsets, when a
     * record cannot be processed; its batch is redelivered after a restart and the processed part skipped.
     *
     * @return how many records' work ran (duplicates excluded)
     */
    public int pollOnce(Duration timeout) throws SQLException {
        ConsumerRecords<byte[], byte[]> records = consumer.poll(timeout);
        int ran = process(records);
        if (!records.isEmpty()) {
            // After the database commits: a crash before this line means redelivery, which the inbox absorbs.
            consumer.commitSync();
        }
        return ran;
    }

    /** Runs the work of each record through the inbox, one database transaction per record. */
    int process(ConsumerRecords<byte[], byte[]> records) throws SQLException {
        int ran = 0;
        for (ConsumerRecord<byte[], byte[]> record : records) {
            recordsRead++;
            // A record without the id header cannot be deduplicated; the inbox refuses it (IllegalArgumentException)
            // and this consumer stops rather than risk counting twice. A real service might dead-letter it.
            String eventId = header(record, "id");
            if (inbox.process(dataSource, eventId, c -> countEvent(c, record)).ran()) {
                ran++;
            }
        }
        return ran;
    }

    /** The business work; runs in the inbox's transaction, so it commits together with the inbox entry. */
    private static Void countEvent(Connection c, ConsumerRecord<byte[], byte[]> record) throws SQLException {
        String aggregateId = record.key() == null ? "" : new String(record.key(), StandardCharsets.UTF_8);
        try (PreparedStatement ps = c.prepareStatement("INSERT INTO events_per_aggregate (aggregate_id, events)"
                + " VALUES (?, 1) ON CONFLICT (aggregate_id) DO UPDATE SET events = events_per_aggregate.events + 1")) {
            ps.setString(1, aggregateId);
            ps.executeUpdate();
        }
        return null;
    }

    /** For the test: a poll that, like a crash right after processing, never commits offsets. */
    ConsumerRecords<byte[], byte[]> pollWithoutCommit(Duration timeout) {
        return consumer.poll(timeout);
    }

    /** For the test: records handed to {@link #process} so far, duplicates included. */
    long recordsRead() {
        return recordsRead;
    }

    private static String header(ConsumerRecord<?, ?> record, String name) {
        Header h = record.headers().lastHeader(name);
        return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
    }

    /** Deletes expired inbox entries; any instance may run it, concurrent purges skip each other's rows. */
    public int purge() throws SQLException {
        return inbox.purgeExpired(dataSource, PURGE_BATCH);
    }

    /** Makes a blocked {@link #pollOnce} throw {@link WakeupException}; safe from another thread. */
    public void wakeup() {
        consumer.wakeup();
    }

    @Override
    public void close() {
        consumer.close();
    }

    /** Polls until interrupted by Ctrl-C. */
    public static void main(String[] args) throws SQLException {
        if (args.length != 3) {
            System.err.println("usage: ExampleConsumer <bootstrap-servers> <topic> <jdbc-url>"
                    + "  (database user and password in PGUSER / PGPASSWORD)");
            System.exit(2);
        }
        PGSimpleDataSource ds = new PGSimpleDataSource();
        ds.setUrl(args[2]);
        ds.setUser(System.getenv("PGUSER"));
        ds.setPassword(System.getenv("PGPASSWORD"));
        try (ExampleConsumer example = new ExampleConsumer(args[0], args[1], ds)) {
            Thread main = Thread.currentThread();
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                example.wakeup();
                try {
                    main.join();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }));
            example.createTables();
            long nextPurge = System.nanoTime();
            while (true) {
                example.pollOnce(Duration.ofSeconds(1));
                if (System.nanoTime() - nextPurge >= 0) {
                    example.purge();
                    nextPurge = System.nanoTime() + PURGE_EVERY.toNanos();
                }
            }
        } catch (WakeupException shuttingDown) {
            // Ctrl-C: uncommitted offsets are redelivered to the next owner, whose inbox skips them.
        }
    }
}
