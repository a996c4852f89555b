package dev.outboxrelay.cdc;

import dev.outboxrelay.core.delivery.DeliverySettings;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Stream;

/** The Debezium engine and connector configuration the relay runs with; passthrough may tune the rest. */
final class EngineProperties {

    /** Heartbeat: a non-transactional logical message moves the slot even when no outbox row is written. */
    static final String HEARTBEAT_QUERY = "SELECT pg_logical_emit_message(false, 'outbox-relay-heartbeat', '')";

    /** Keys the relay must own: changing them would break the commit protocol or read the wrong data. */
    private static final Set<String> OWNED = Set.of("name", "connector.class", "offset.storage",
            "offset.storage.file.filename", "offset.flush.interval.ms", "plugin.name", "slot.name",
            "publication.name", "publication.autocreate.mode", "table.include.list", "column.include.list",
            "column.exclude.list", "snapshot.mode",
            "slot.drop.on.stop", "topic.prefix", "tombstones.on.delete", "transforms", "predicates");

    /** Debezium's queue holds this many batches: see {@link #build}. */
    static final int QUEUE_BATCHES = 2;

    /** Debezium's default batch size in the relay: see {@link #maxBatchSize}. */
    static final int DEFAULT_MAX_BATCH_SIZE = 2048;

    private EngineProperties() {
    }

    /** The delivery pipeline's settings: {@code depth} batches and half the byte budget in flight. */
    static DeliverySettings delivery(CdcSettings s, int depth) {
        return new DeliverySettings(s.maxAttempts(), s.onPoison(), s.deadLetterTopic(), depth * maxBatchSize(s),
                halfBudget(s), "outbox-relay-cdc-settle");
    }

    /**
     * Estimated bytes one page of rows read from the table holds at most (rescan, parked keys), one row always: a
     * quarter of the pipeline's share, so a page never waits for the whole pipeline to drain.
     */
    static long pageBytes(CdcSettings s) {
        return Math.max(1, halfBudget(s) / 4);
    }

    /**
     * Ids of rescanned rows remembered so the stream can skip them: about 100 bytes each in a concurrent set, in a
     * quarter of the budget, between 10,000 and 1,000,000. Beyond, the stream may publish rescanned rows again.
     */
    static int rememberedIds(CdcSettings s) {
        return (int) Math.max(10_000, Math.min(1_000_000, s.maxInFlightBytes() / 4 / 100));
    }

    /**
     * Silence of the stream after which the source is unhealthy: three missed heartbeats and 2 s of slack. A
     * black-holed replication path is retried inside Debezium's engine; this is how the relay notices it.
     */
    static java.time.Duration silenceBound(CdcSettings s) {
        return s.heartbeatInterval().multipliedBy(3).plusSeconds(2);
    }

    /** Half the byte budget: Debezium's queue holds one half, the delivery pipeline the other. */
    private static long halfBudget(CdcSettings s) {
        return Math.max(1, s.maxInFlightBytes() / 2);
    }

    /** {@code max.batch.size}, as passed through or the relay's default; also the rescan's page size. */
    static int maxBatchSize(CdcSettings s) {
        String value = s.debezium().get("max.batch.size");
        if (value == null) {
            return DEFAULT_MAX_BATCH_SIZE;
        }
        try {
            int size = Integer.parseInt(value.trim());
            if (size > 0) {
                return size;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException("debezium.max.batch.size must be a positive integer, was '" + value + "'");
    }

    /**
     * Debezium settings a user may tune: only ones that cannot change what is published, skipped or masked, nor
     * stop retrying (queue and batch sizes, poll and status cadence, retry delays, statistics). An allow-list:
     * Debezium has hundreds of settings, and settings such as {@code column.mask.with.*},
     * {@code skipped.operations} or {@code errors.max.retries} would silently publish masked payloads, move the
     * slot past inserts or give up.
     */
    static final Set<String> TUNABLE = Set.of("max.batch.size", "max.queue.size", "max.queue.size.in.bytes",
            "poll.interval.ms", "status.update.interval.ms", "errors.retry.delay.initial.ms",
            "errors.retry.delay.max.ms", "retriable.restart.connector.wait.ms", "offset.flush.timeout.ms",
            "slot.max.retries", "slot.retry.delay.ms", "xmin.fetch.interval.ms", "statistics.metrics.enabled");

    /** @throws IllegalArgumentException naming every passthrough key that is not {@link #TUNABLE} */
    static void checkPassthrough(Map<String, String> debezium) {
        String batch = debezium.get("max.batch.size");
        if (batch != null && !batch.trim().matches("[1-9][0-9]{0,8}")) {
            throw new IllegalArgumentException("debezium.max.batch.size must be a positive integer, was '" + batch
                    + "'");
        }
        List<String> owned = new ArrayList<>();
        List<String> refused = new ArrayList<>();
        for (String key : new java.util.TreeSet<>(debezium.keySet())) {
            if (OWNED.contains(key) || key.startsWith("database.") || key.startsWith("transforms.")) {
                owned.add("debezium." + key);
            } else if (!TUNABLE.contains(key)) {
                refused.add("debezium." + key);
            }
        }
        List<String> problems = new ArrayList<>();
        if (!owned.isEmpty()) {
            problems.add(String.join(", ", owned) + (owned.size() == 1 ? " is" : " are")
                    + " set by the relay and cannot be overridden (use the relay's own options)");
        }
        if (!refused.isEmpty()) {
            problems.add(String.join(", ", refused) + (refused.size() == 1 ? " is" : " are")
                    + " not among the Debezium settings the relay lets you tune, which cannot change what is"
                    + " published: " + String.join(", ", new java.util.TreeSet<>(TUNABLE)));
        }
        if (!problems.isEmpty()) {
            throw new IllegalArgumentException(String.join("; ", problems));
        }
    }

    /** @throws SQLException when a URL with several hosts cannot be resolved to the one the driver picks now */
    static Properties build(CdcSettings s, Database db) throws SQLException {
        checkPassthrough(s.debezium());
        Map<String, String> p = new LinkedHashMap<>();
        p.put("name", s.relayName());
        p.put("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        p.put("topic.prefix", s.relayName());
        p.putAll(db.debeziumProperties());
        p.put("plugin.name", "pgoutput");
        p.put("slot.name", s.slotName());
        p.put("publication.name", s.publication());
        // The relay creates the publication itself (inserts only, the outbox table only), so Debezium must not.
        p.put("publication.autocreate.mode", "disabled");
        p.put("table.include.list", s.table().schema() + "\\." + s.table().table());
        // Only the contract columns are converted: seq, sent_at, attempts... cost CPU per event and are never read.
        p.put("column.include.list", String.join(",", ChangeHandler.columns(s.table().layout()).stream()
                .map(c -> s.table().schema() + "\\." + s.table().table() + "\\." + c).toList()));
        // Existing rows are the rescan's job (in seq order, with the relay's own bookkeeping).
        p.put("snapshot.mode", "no_data");
        p.put("slot.drop.on.stop", "false");
        p.put("tombstones.on.delete", "false");
        if (s.offsetStore() == CdcSettings.OffsetStore.DB) {
            p.put("offset.storage", JdbcOffsetBackingStore.class.getName());
        } else {
            p.put("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
            p.put("offset.storage.file.filename", s.offsetFile().toAbsolutePath().toString());
        }
        // Offsets are written after every settled batch: the confirmed LSN follows Kafka's acknowledgements.
        p.put("offset.flush.interval.ms", "0");
        p.put("offset.flush.timeout.ms", "60000");
        p.put("heartbeat.interval.ms", Long.toString(s.heartbeatInterval().toMillis()));
        p.put("heartbeat.action.query", HEARTBEAT_QUERY);
        // Throughput: batches pipelined by the relay (relay-core's DeliveryPipeline), short waits; records stay Connect
        // Structs (no JSON round trip). With MAX_UNSETTLED_EVENTS, max.batch.size bounds the duplicates of a crash.
        p.put("max.batch.size", Integer.toString(maxBatchSize(s)));
        // Debezium's queue only has to keep the next batch ready while the relay sends this one. Every queued record
        // is a few KB of Connect structs: 32,768 of them filled a 256 MB heap and the relay spent a quarter of its
        // time in (full) GCs whenever decoding ran ahead of publishing.
        p.put("max.queue.size", Integer.toString(QUEUE_BATCHES * maxBatchSize(s)));
        // And in bytes (Debezium sizes each queued record): big rows cannot fill the heap while Kafka is down.
        p.put("max.queue.size.in.bytes", Long.toString(halfBudget(s)));
        // Both Debezium loops (the replication stream's and the engine's queue) wait this long when they find
        // nothing or less than a batch: at 10 ms that is CDC's p50 (14 ms at 1,000 events/s, the engine alone 13;
        // 7 ms at 2). Not lowered: the queue's wait busy-loops the last sub-millisecond of every interval, so an
        // idle relay's JVM burns 34 % of a core at 2 ms, 19 % at 5, 10 % at 10 (docs/cdc-mode.md, "Latency").
        p.put("poll.interval.ms", "10");
        p.put("status.update.interval.ms", "1000");
        p.put("record.processing.threads", "1");
        // Debezium 3.6 queues a lag sample per event (MeasurementCollector: 1,000 slots, not configurable, drained
        // by one thread) for a quantile sketch nothing in the relay reads. Disabled, that thread discards each
        // sample instead of updating the sketch; the queue still fills on a busy CPU and Debezium logs a WARN per
        // dropped sample, which the relay's logback.xml silences.
        p.put("statistics.metrics.enabled", "false");
        // Connection losses (a killed walsender, a restarted database): restart the task, forever.
        p.put("errors.max.retries", "-1");
        p.put("errors.retry.delay.initial.ms", "300");
        p.put("errors.retry.delay.max.ms", "10000");
        p.put("retriable.restart.connector.wait.ms", "2000");
        p.putAll(s.debezium());
        Properties props = new Properties();
        props.putAll(p);
        return props;
    }
}
