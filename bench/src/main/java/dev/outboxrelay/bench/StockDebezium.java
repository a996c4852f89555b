package dev.outboxrelay.bench;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The stock Debezium baseline: the embedded engine with the JSON format and default connector settings
 * (pgoutput, file offsets, schemas in the envelope, a publication of every column), and a change consumer that
 * publishes each batch and waits: send every record's value, wait for all acks, then {@code markProcessed} each
 * and {@code markBatchFinished}.
 * It sends the Debezium envelope as is, to the scenario's topic, with a producer on the client's defaults.
 */
final class StockDebezium extends EngineContender<ChangeEvent<String, String>> {

    static final String NAME = "stock Debezium";

    /** The publication stock Debezium reads: the whole outbox table, as Debezium would create it itself. */
    static final String PUBLICATION = "bench_debezium_pub";

    private final Properties props = new Properties();
    private final KafkaProducer<String, String> producer;
    private final String topic;

    StockDebezium(String host, int port, String database, String user, String password, String bootstrap,
                  String topic) throws IOException {
        super(NAME);
        this.topic = topic;
        props.setProperty("name", "bench-debezium");
        connectTo(props, host, port, database, user, password);
        props.setProperty("topic.prefix", "bench");
        props.setProperty("slot.name", "bench_debezium");
        props.setProperty("publication.name", PUBLICATION);
        props.setProperty("table.include.list", "public.outbox");
        this.producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
    }

    @Override
    Properties properties() {
        return props;
    }

    @Override
    DebeziumEngine.Builder<ChangeEvent<String, String>> builder() {
        return DebeziumEngine.create(Json.class);
    }

    @Override
    void handle(List<ChangeEvent<String, String>> records,
                DebeziumEngine.RecordCommitter<ChangeEvent<String, String>> committer) throws InterruptedException {
        List<Future<RecordMetadata>> acks = new ArrayList<>(records.size());
        for (ChangeEvent<String, String> r : records) {
            if (r.value() != null) {
                acks.add(producer.send(new ProducerRecord<>(topic, r.key(), r.value())));
            }
        }
        try {
            for (Future<RecordMetadata> ack : acks) {
                ack.get();
            }
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("publish failed", e.getCause());
        }
        for (ChangeEvent<String, String> r : records) {
            committer.markProcessed(r);
        }
        committer.markBatchFinished();
    }

    @Override
    void release() {
        producer.close();
    }
}
