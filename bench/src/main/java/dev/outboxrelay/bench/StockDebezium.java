package dev.outboxrelay.bench;

import io.debezium.engine.ChangeEvent;
import io.debezium.engine.DebeziumEngine;
import io.debezium.engine.format.Json;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
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
final class StockDebezium implements Contender {

    private final Properties props = new Properties();
    private final KafkaProducer<String, String> producer;
    private final String topic;
    private final Gate gate = new Gate();
    private final CountDownLatch polling = new CountDownLatch(1);
    private final ExecutorService executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "bench-debezium"));
    private final Path offsets;
    private DebeziumEngine<ChangeEvent<String, String>> engine;
    private volatile Throwable failure;

    /** The publication stock Debezium reads: the whole outbox table, as Debezium would create it itself. */
    static final String PUBLICATION = "bench_debezium_pub";

    StockDebezium(String host, int port, String database, String user, String password, String bootstrap,
                  String topic) throws IOException {
        this.topic = topic;
        this.offsets = Files.createTempFile("bench-debezium-offsets", ".dat");
        props.setProperty("name", "bench-debezium");
        props.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        props.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
        props.setProperty("offset.storage.file.filename", offsets.toString());
        props.setProperty("database.hostname", host);
        props.setProperty("database.port", Integer.toString(port));
        props.setProperty("database.user", user);
        props.setProperty("database.password", password);
        props.setProperty("database.dbname", database);
        props.setProperty("topic.prefix", "bench");
        props.setProperty("plugin.name", "pgoutput");
        props.setProperty("slot.name", "bench_debezium");
        props.setProperty("publication.name", PUBLICATION);
        props.setProperty("table.include.list", "public.outbox");
        this.producer = new KafkaProducer<>(Map.<String, Object>of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class));
    }

    @Override
    public String name() {
        return "stock Debezium";
    }

    @Override
    public void start() throws Exception {
        engine = DebeziumEngine.create(Json.class)
                .using(props)
                .notifying(this::handleBatch)
                .using(new DebeziumEngine.ConnectorCallback() {
                    @Override
                    public void pollingStarted() {
                        polling.countDown();
                    }
                })
                .using((success, message, error) -> {
                    if (!success) {
                        failure = error != null ? error : new IllegalStateException(message);
                    }
                    polling.countDown();
                })
                .build();
        executor.execute(engine);
        if (!polling.await(120, TimeUnit.SECONDS)) {
            throw new IllegalStateException("stock Debezium did not start streaming within 120 s");
        }
        check();
    }

    private void handleBatch(List<ChangeEvent<String, String>> records,
                             DebeziumEngine.RecordCommitter<ChangeEvent<String, String>> committer)
            throws InterruptedException {
        gate.pass();
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

    private void check() {
        if (failure != null) {
            throw new IllegalStateException("stock Debezium failed: " + failure.getMessage(), failure);
        }
    }

    @Override
    public void pause() throws InterruptedException {
        gate.pause(false); // the engine only calls us with records, so it cannot park while idle
        check();
    }

    @Override
    public void resume() {
        check();
        gate.resume();
    }

    @Override
    public void close() {
        gate.resume();
        try {
            if (engine != null) {
                engine.close();
            }
            executor.shutdown();
            executor.awaitTermination(60, TimeUnit.SECONDS);
        } catch (IOException e) {
            // closing anyway
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        producer.close();
        try {
            Files.deleteIfExists(offsets);
        } catch (IOException ignored) {
            // temp file
        }
    }
}
