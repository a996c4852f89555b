package dev.outboxrelay.bench;

import io.debezium.engine.DebeziumEngine;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * A contender built on Debezium's embedded engine (stock Debezium, the CDC floor): runs the engine on a thread of
 * its own with file offsets, starts once it streams, and pauses at a {@link Gate} in its batch handler.
 *
 * @param <R> the change events of the engine's format
 */
abstract class EngineContender<R> implements Contender {

    private final String name;
    private final Gate gate = new Gate();
    private final CountDownLatch polling = new CountDownLatch(1);
    private final ExecutorService executor;
    private final Path offsets;
    private DebeziumEngine<R> engine;
    private volatile Throwable failure;

    EngineContender(String name) throws IOException {
        this.name = name;
        this.executor = Executors.newSingleThreadExecutor(r -> new Thread(r, "bench-engine"));
        this.offsets = Files.createTempFile("bench-engine-offsets", ".dat");
    }

    @Override
    public String name() {
        return name;
    }

    /** The PostgreSQL connector's database settings. */
    static void connectTo(Properties props, String host, int port, String database, String user, String password) {
        props.setProperty("connector.class", "io.debezium.connector.postgresql.PostgresConnector");
        props.setProperty("database.hostname", host);
        props.setProperty("database.port", Integer.toString(port));
        props.setProperty("database.user", user);
        props.setProperty("database.password", password);
        props.setProperty("database.dbname", database);
        props.setProperty("plugin.name", "pgoutput");
    }

    /** The connector's properties; the offset storage is set here. */
    abstract Properties properties();

    /** A builder of the engine in the contender's format. */
    abstract DebeziumEngine.Builder<R> builder();

    /** Publishes a batch and acknowledges it; called once the gate lets it pass. */
    abstract void handle(List<R> records, DebeziumEngine.RecordCommitter<R> committer) throws InterruptedException;

    @Override
    public final void start() throws Exception {
        Properties props = properties();
        props.setProperty("offset.storage", "org.apache.kafka.connect.storage.FileOffsetBackingStore");
        props.setProperty("offset.storage.file.filename", offsets.toString());
        engine = builder()
                .using(props)
                .notifying((records, committer) -> {
                    gate.pass();
                    handle(records, committer);
                })
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
            throw new IllegalStateException(name + " did not start streaming within 120 s");
        }
        check();
    }

    private void check() {
        if (failure != null) {
            throw new IllegalStateException(name + " failed: " + failure.getMessage(), failure);
        }
    }

    @Override
    public final void pause() throws InterruptedException {
        gate.pause(false); // the engine only calls the handler with records, so it cannot park while idle
        check();
    }

    @Override
    public final void resume() {
        check();
        gate.resume();
    }

    /** Closes what the subclass opened (its producer); called after the engine stopped. */
    abstract void release();

    @Override
    public final void close() {
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
        release();
        try {
            Files.deleteIfExists(offsets);
        } catch (IOException ignored) {
            // temp file
        }
    }
}
