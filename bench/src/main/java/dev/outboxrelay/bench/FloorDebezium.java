package dev.outboxrelay.bench;

import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import io.debezium.embedded.Connect;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.RecordChangeEvent;
import io.debezium.engine.format.ChangeEventFormat;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.stream.Collectors;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.source.SourceRecord;

/**
 * The CDC floor: Debezium's embedded engine set up as the relay sets it up for the same work (pgoutput on the
 * relay's publication, the relay's columns, Connect structs, {@code poll.interval.ms} 10, 2,048-event batches,
 * statistics off), into a handler that hands each event to a producer with the relay's settings and acknowledges
 * it at once, without waiting for Kafka. Offsets go to a file on Debezium's default cadence. What the relay adds
 * on top of this is its own cost.
 */
final class FloorDebezium extends EngineContender<RecordChangeEvent<SourceRecord>> {

    static final String NAME = "floor: engine + producer";

    private final Properties props = new Properties();
    private final KafkaProducer<byte[], byte[]> producer;
    private final String topic;

    FloorDebezium(String host, int port, String database, String user, String password, String bootstrap,
                  String topic) throws IOException {
        super(NAME);
        this.topic = topic;
        OutboxTable table = OutboxTable.DEFAULT;
        props.setProperty("name", "bench-floor");
        connectTo(props, host, port, database, user, password);
        props.setProperty("topic.prefix", "bench-floor");
        props.setProperty("slot.name", "bench_floor");
        props.setProperty("publication.name", OutboxSchema.DEFAULT_PUBLICATION);
        props.setProperty("publication.autocreate.mode", "disabled");
        props.setProperty("table.include.list", table.schema() + "\\." + table.table());
        props.setProperty("column.include.list", table.layout().streamedColumns().stream()
                .map(c -> table.schema() + "\\." + table.table() + "\\." + c).collect(Collectors.joining(",")));
        props.setProperty("snapshot.mode", "no_data");
        props.setProperty("tombstones.on.delete", "false");
        props.setProperty("max.batch.size", "2048");
        props.setProperty("poll.interval.ms", "10");
        props.setProperty("record.processing.threads", "1");
        props.setProperty("statistics.metrics.enabled", "false");
        this.producer = new KafkaProducer<>(ProducerSettings.of(bootstrap, Map.of()).producerProperties());
    }

    @Override
    Properties properties() {
        return props;
    }

    @Override
    DebeziumEngine.Builder<RecordChangeEvent<SourceRecord>> builder() {
        return DebeziumEngine.create(ChangeEventFormat.of(Connect.class));
    }

    @Override
    void handle(List<RecordChangeEvent<SourceRecord>> records,
                DebeziumEngine.RecordCommitter<RecordChangeEvent<SourceRecord>> committer)
            throws InterruptedException {
        for (RecordChangeEvent<SourceRecord> r : records) {
            if (r.record().value() instanceof Struct envelope && envelope.schema().field("after") != null
                    && envelope.getStruct("after") != null) {
                Struct after = envelope.getStruct("after");
                ProducerRecord<byte[], byte[]> out = new ProducerRecord<>(topic,
                        after.getString("aggregate_id").getBytes(StandardCharsets.UTF_8),
                        after.getString("payload").getBytes(StandardCharsets.UTF_8));
                out.headers().add("id", after.getString("id").getBytes(StandardCharsets.UTF_8));
                producer.send(out);
            }
            committer.markProcessed(r);
        }
        committer.markBatchFinished();
    }

    @Override
    void release() {
        producer.close();
    }
}
