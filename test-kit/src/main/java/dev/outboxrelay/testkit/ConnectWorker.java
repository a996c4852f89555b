package dev.outboxrelay.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

/**
 * A real Kafka Connect worker in distributed mode ({@code org.apache.kafka.connect.cli.ConnectDistributed}) in a JVM
 * of its own, so a test can kill it with SIGKILL. Its classpath is the test's, without the project's own classes and
 * artifacts: the connector under test is loaded only from {@code plugin.path}, in Connect's plugin isolation, as
 * in production. Its log goes to {@code <name>.log} in this run's {@link ItLogs#dir()}.
 */
public final class ConnectWorker implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final String name;
    private final Process process;
    private final String url;
    private final Path log;

    private ConnectWorker(String name, Process process, String url, Path log) {
        this.name = name;
        this.process = process;
        this.url = url;
        this.log = log;
    }

    /**
     * Starts a worker of Connect group {@code group} (its internal topics are named after it) and waits until its
     * REST API answers.
     *
     * @param overrides worker properties on top of the test defaults (ByteArrayConverter, replication factor 1,
     *                  a 3 s rebalance delay so a dead worker's tasks move quickly, 1 s offset flushes)
     */
    public static ConnectWorker start(String name, String bootstrap, String group, Path pluginPath,
                                      Map<String, String> overrides) throws IOException, InterruptedException {
        return start(name, bootstrap, group, pluginPath, overrides, ItLogs.dir(), workerClasspath(),
                TEST_JVM_OPTIONS);
    }

    /** JVM options of the test workers: a small heap, several of them share a CI machine; {@link TestJvm}. */
    public static final List<String> TEST_JVM_OPTIONS = java.util.stream.Stream.concat(
            java.util.stream.Stream.of("-Xms64m", "-Xmx512m"), TestJvm.OPTIONS.stream()).toList();

    /**
     * {@code connect-distributed.sh}'s defaults: KAFKA_HEAP_OPTS and the G1 part of KAFKA_JVM_PERFORMANCE_OPTS, as a
     * worker runs in production.
     */
    public static final List<String> PRODUCTION_JVM_OPTIONS = List.of("-Xms256M", "-Xmx2G", "-XX:+UseG1GC",
            "-XX:MaxGCPauseMillis=20", "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent");

    /**
     * Starts a worker with its log and properties in {@code dir}, on {@code classpath} (which must hold
     * connect-runtime and its dependencies, and not the plugin), with {@code jvmOptions}.
     */
    public static ConnectWorker start(String name, String bootstrap, String group, Path pluginPath,
                                      Map<String, String> overrides, Path dir, String classpath,
                                      List<String> jvmOptions) throws IOException, InterruptedException {
        Files.createDirectories(dir);
        Path log = dir.resolve(name + ".log");
        int port = TestPorts.reserve();
        Properties props = new Properties();
        props.putAll(defaults(bootstrap, group, pluginPath, port));
        props.putAll(overrides);
        Path config = dir.resolve(name + ".properties");
        try (var out = Files.newBufferedWriter(config, StandardCharsets.UTF_8)) {
            props.store(out, "Connect worker " + name);
        }
        Path logback = dir.resolve("connect-logback.xml");
        Files.writeString(logback, "<configuration><appender name=\"OUT\" class=\"ch.qos.logback.core.ConsoleAppender\">"
                + "<encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>"
                + "</appender><logger name=\"org.apache.kafka.clients\" level=\"WARN\"/>"
                + "<logger name=\"org.apache.kafka.common\" level=\"WARN\"/>"
                + "<root level=\"INFO\"><appender-ref ref=\"OUT\"/></root></configuration>");
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-Dlogback.configurationFile=" + logback.toAbsolutePath(), "-cp", classpath,
                "org.apache.kafka.connect.cli.ConnectDistributed", config.toString()));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        ConnectWorker worker = new ConnectWorker(name, pb.start(), "http://127.0.0.1:" + port, log);
        worker.awaitRest(Duration.ofSeconds(90));
        return worker;
    }

    private static Map<String, String> defaults(String bootstrap, String group, Path pluginPath, int port) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", group);
        p.put("config.storage.topic", group + "-configs");
        p.put("offset.storage.topic", group + "-offsets");
        p.put("status.storage.topic", group + "-status");
        p.put("config.storage.replication.factor", "1");
        p.put("offset.storage.replication.factor", "1");
        p.put("status.storage.replication.factor", "1");
        p.put("offset.storage.partitions", "5");
        p.put("status.storage.partitions", "1");
        p.put("key.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        p.put("value.converter", "org.apache.kafka.connect.converters.ByteArrayConverter");
        p.put("listeners", "http://127.0.0.1:" + port);
        p.put("rest.advertised.host.name", "127.0.0.1");
        p.put("rest.advertised.port", Integer.toString(port));
        p.put("plugin.path", pluginPath.toAbsolutePath().toString());
        p.put("plugin.discovery", "service_load");
        p.put("scheduled.rebalance.max.delay.ms", "3000");
        p.put("offset.flush.interval.ms", "1000");
        p.put("task.shutdown.graceful.timeout.ms", "5000");
        // A SIGKILLed worker leaves the group after its session times out: 6 s rather than 10.
        p.put("session.timeout.ms", "6000");
        p.put("heartbeat.interval.ms", "1000");
        return p;
    }

    /**
     * The test's classpath without the project's classes and artifacts (they must come from the plugin): reactor
     * modules are their {@code target} directories or jars, installed ones live under {@code dev/outboxrelay}.
     */
    public static String workerClasspath() {
        return Arrays.stream(System.getProperty("java.class.path").split(java.io.File.pathSeparator))
                .filter(e -> !e.contains("/dev/outboxrelay/") && !e.contains("/target/") && !e.contains("/io/debezium/"))
                .collect(Collectors.joining(java.io.File.pathSeparator));
    }

    private void awaitRest(Duration timeout) throws InterruptedException, IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("Connect worker " + name + " exited with " + process.exitValue()
                        + "; see " + log.toAbsolutePath());
            }
            try {
                if (get("/connectors").statusCode() == 200) {
                    return;
                }
            } catch (IOException e) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        throw new IllegalStateException("Connect worker " + name + " did not answer within " + timeout + "; see "
                + log.toAbsolutePath());
    }

    /** Creates or updates connector {@code connector}; returns the REST answer's body. */
    public String putConnector(String connector, Map<String, String> config) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url + "/connectors/" + connector
                        + "/config")).timeout(Duration.ofSeconds(60)).header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(config))).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() / 100 != 2) {
            throw new IllegalStateException("PUT connector " + connector + ": " + r.statusCode() + " " + r.body());
        }
        return r.body();
    }

    /** {@code PUT /connector-plugins/<class>/config/validate}: the validation result as JSON. */
    public JsonNode validate(String connectorClass, Map<String, String> config) throws IOException, InterruptedException {
        HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(url + "/connector-plugins/"
                        + connectorClass + "/config/validate")).timeout(Duration.ofSeconds(60))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(config))).build(),
                HttpResponse.BodyHandlers.ofString());
        return JSON.readTree(r.body());
    }

    /** {@code GET /connectors/<name>/status} as JSON, or null while the connector is unknown. */
    public JsonNode status(String connector) {
        try {
            HttpResponse<String> r = get("/connectors/" + connector + "/status");
            return r.statusCode() == 200 ? JSON.readTree(r.body()) : null;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The worker ids ({@code host:port}) running the connector's tasks in state RUNNING. */
    public List<String> runningTaskWorkers(String connector) {
        JsonNode status = status(connector);
        List<String> workers = new ArrayList<>();
        if (status != null) {
            for (JsonNode t : status.path("tasks")) {
                if ("RUNNING".equals(t.path("state").asText())) {
                    workers.add(t.path("worker_id").asText());
                }
            }
        }
        return workers;
    }

    /** This worker's id as the status shows it. */
    public String workerId() {
        return url.substring("http://".length());
    }

    private HttpResponse<String> get(String path) throws IOException, InterruptedException {
        return HTTP.send(HttpRequest.newBuilder(URI.create(url + path)).timeout(Duration.ofSeconds(10)).GET().build(),
                HttpResponse.BodyHandlers.ofString());
    }

    /** The worker's process, for CPU and memory readings and signals. */
    public Process process() {
        return process;
    }

    public Path log() {
        return log;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL: no shutdown, no offset flush, no task stop. */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** SIGTERM, and waits for the worker to stop. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
