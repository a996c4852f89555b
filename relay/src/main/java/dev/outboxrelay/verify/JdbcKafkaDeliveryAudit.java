package dev.outboxrelay.verify;

import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.OutboxTable;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Loads the window's rows, then streams each routed topic once. Order is judged on the first occurrence of
 * each id, per (topic, key), in offset order: a redelivery after later events is a duplicate, not an order
 * violation, since a consumer deduplicating by id sees the right order (as the test kit's DeliveryReport).
 */
final class JdbcKafkaDeliveryAudit implements DeliveryAudit {

    /** Records are read from this long before the window: the relay's and the database's clocks may differ. */
    private static final Duration CLOCK_SKEW = Duration.ofMinutes(5);

    private final ConnectionFactory database;
    private final OutboxTable table;
    private final EventRouter router;
    private final Map<String, Object> consumerConfig;

    JdbcKafkaDeliveryAudit(ConnectionFactory database, OutboxTable table, EventRouter router,
                           Map<String, Object> consumerConfig) {
        this.database = database;
        this.table = table;
        this.router = router;
        Map<String, Object> c = new HashMap<>(consumerConfig);
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.putIfAbsent(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        c.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        c.putIfAbsent(ConsumerConfig.CLIENT_ID_CONFIG, "outbox-relay-verify");
        this.consumerConfig = Map.copyOf(c);
    }

    /** Per (topic, key): where its first occurrences were and the latest expected position seen. */
    private static final class KeyState {
        int partition = -1;
        int highest = -1;
    }

    @Override
    public AuditReport run(Duration since, Consumer<String> progress) throws Exception {
        OutboxRows window;
        try (Connection c = database.open()) {
            window = OutboxRows.load(c, table, router, since);
        }
        List<OutboxRows.Row> rows = window.rows;
        Map<String, Long> topics = new TreeMap<>();
        rows.stream().filter(r -> r.topic != null).forEach(r -> topics.put(r.topic, 0L));
        Map<String, KeyState> keys = new HashMap<>();
        List<String> violations = new ArrayList<>();
        TopicScan scan = new TopicScan(consumerConfig, progress);
        long from = window.since.minus(CLOCK_SKEW).toEpochMilli();
        for (String topic : topics.keySet()) {
            long read = scan.read(topic, from, r -> observe(r, window, keys, violations));
            topics.put(topic, read);
        }

        List<AuditReport.Row> lost = new ArrayList<>();
        List<AuditReport.Row> deadLetters = new ArrayList<>();
        Map<String, Integer> duplicates = new LinkedHashMap<>();
        long sent = 0;
        long unsent = 0;
        Instant oldestUnsent = null;
        for (OutboxRows.Row r : rows) {
            if (r.sent) {
                sent++;
                if (r.seen == 0) {
                    lost.add(r.describe());
                }
            } else if (r.deadLettered) {
                deadLetters.add(r.describe());
            } else {
                unsent++;
                oldestUnsent = oldestUnsent == null ? r.createdAt : oldestUnsent;
            }
            if (r.seen > 1) {
                duplicates.put(r.id, r.seen);
            }
        }
        return new AuditReport(window.since, rows.size(), sent, topics, lost, duplicates, violations, unsent,
                oldestUnsent, deadLetters, window.unroutable,
                "read_committed".equals(consumerConfig.get(ConsumerConfig.ISOLATION_LEVEL_CONFIG)));
    }

    private static void observe(ConsumerRecord<byte[], byte[]> record, OutboxRows window,
                                Map<String, KeyState> keys, List<String> violations) {
        Header header = record.headers().lastHeader(EventRouter.HEADER_ID);
        if (header == null || header.value() == null) {
            return;
        }
        Integer index = window.indexById.get(new String(header.value(), StandardCharsets.UTF_8));
        if (index == null) {
            return; // outside the window, or another producer's record
        }
        OutboxRows.Row row = window.rows.get(index);
        if (++row.seen > 1 || !record.topic().equals(row.topic)) {
            return;
        }
        KeyState key = keys.computeIfAbsent(row.topic + '\u0000' + row.aggregateId, k -> new KeyState());
        if (key.partition == -1) {
            key.partition = record.partition();
        } else if (key.partition != record.partition()) {
            violations.add(row.topic + "/" + row.aggregateId + ": on partitions " + new TreeSet<>(
                    List.of(key.partition, record.partition())) + ", so its order cannot hold (id " + row.id + ")");
            return;
        }
        if (index < key.highest) {
            OutboxRows.Row later = window.rows.get(key.highest);
            violations.add(row.topic + "/" + row.aggregateId + ": " + row.id + " (seq " + row.seq
                    + ") arrived after " + later.id + " (seq " + later.seq + ")");
        } else {
            key.highest = index;
        }
    }
}
