package dev.outboxrelay.bench;

import dev.outboxrelay.testkit.ConnectWorker;
import dev.outboxrelay.testkit.TestDatabase;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The relay as a Kafka Connect source connector: one Connect worker in distributed mode, in its own JVM with
 * {@code connect-distributed.sh}'s default JVM options, running the plugin from {@code plugin.path} with one task
 * (one process and one reader, as the daemon). Paused with SIGSTOP like the relay; the worker's group session is made
 * long enough to outlast a pause, so it resumes its task instead of rejoining the group.
 */
final class ConnectContender extends SubprocessContender {

    private static final String CONNECTOR = "bench-outbox";

    private final Path pluginPath;
    private final String classpath;
    private final TestDatabase database;
    private final String bootstrap;
    private final String topic;
    private ConnectWorker worker;

    ConnectContender(Path pluginPath, String classpath, TestDatabase database, String bootstrap, String topic,
                     Path log) {
        super(log);
        this.pluginPath = pluginPath;
        this.classpath = classpath;
        this.database = database;
        this.bootstrap = bootstrap;
        this.topic = topic;
    }

    @Override
    public String name() {
        return "connect";
    }

    @Override
    public void start() throws Exception {
        String group = "bench-connect-" + database.name();
        Map<String, String> worker = Map.of("session.timeout.ms", "600000", "heartbeat.interval.ms", "3000",
                "rebalance.timeout.ms", "600000");
        String name = log.getFileName().toString().replace(".log", "");
        this.worker = ConnectWorker.start(name, bootstrap, group, pluginPath, worker, log.getParent(), classpath,
                ConnectWorker.PRODUCTION_JVM_OPTIONS);
        process = this.worker.process();
        this.worker.putConnector(CONNECTOR, config());
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (this.worker.runningTaskWorkers(CONNECTOR).isEmpty()) {
            if (System.nanoTime() > deadline || !process.isAlive()) {
                throw new IllegalStateException("the connector's task did not start; see " + this.worker.log());
            }
            Thread.sleep(200);
        }
    }

    private Map<String, String> config() {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", "dev.outboxrelay.connect.OutboxSourceConnector");
        c.put("tasks.max", "1");
        for (String converter : List.of("key.converter", "value.converter", "header.converter")) {
            c.put(converter, "org.apache.kafka.connect.converters.ByteArrayConverter");
        }
        c.put("errors.tolerance", "all");
        c.put("db-url", database.jdbcUrl());
        c.put("db-user", database.relayUser());
        c.put("db-password", database.relayPassword());
        c.put("topic-template", topic);
        c.put("on-publish", "mark");
        return c;
    }

    @Override
    public void pause() throws Exception {
        signal("STOP");
    }

    @Override
    public void resume() throws Exception {
        signal("CONT");
    }

    @Override
    void stop() {
        try {
            signal("CONT");
            worker.close();
        } catch (Exception e) {
            process.destroyForcibly();
        }
    }
}
