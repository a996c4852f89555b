package dev.outboxrelay.connect;

import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.connect.data.Schema;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.header.ConnectHeaders;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The daemon's record as a Connect {@link SourceRecord}: the same topic, key, value and headers as bytes, so that
 * with {@code ByteArrayConverter} for keys, values and headers the worker writes exactly what the daemon writes.
 * The partition is left to the producer's partitioner (keyed, as the daemon's).
 */
final class Records {

    /** Source offset key: the row's {@code seq}, which also tells {@code commitRecord} which row it was. */
    static final String SEQ = "seq";
    /**
     * Source offset key under exactly-once: the ids of the rows returned and not yet marked, committed in the same
     * transaction as the records, so a task that restarts marks them instead of publishing them again.
     */
    static final String UNMARKED = "unmarked";

    private Records() {
    }

    /**
     * The source partition of a task: its table and shard, in a fixed key order. Connect stores offsets under the
     * serialized map, and {@code Map.of}'s iteration order differs from one JVM to the next: a task moved to another
     * worker did not find its predecessor's position (seen as duplicates under exactly-once).
     */
    static Map<String, String> partition(Object table, Object shard) {
        return new java.util.TreeMap<>(Map.of("table", table.toString(), "shard", shard.toString()));
    }

    static SourceRecord of(ProducerRecord<byte[], byte[]> record, Map<String, ?> partition, Map<String, ?> offset) {
        ConnectHeaders headers = new ConnectHeaders();
        for (Header h : record.headers()) {
            headers.add(h.key(), new SchemaAndValue(Schema.OPTIONAL_BYTES_SCHEMA, h.value()));
        }
        return new SourceRecord(partition, offset, record.topic(), record.partition(), Schema.OPTIONAL_BYTES_SCHEMA,
                record.key(), Schema.OPTIONAL_BYTES_SCHEMA, record.value(), record.timestamp(), headers);
    }

    /** The row's seq a record of this connector carries. */
    static long seqOf(SourceRecord record) {
        return ((Number) record.sourceOffset().get(SEQ)).longValue();
    }
}
