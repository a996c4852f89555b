package dev.outboxrelay.cli;

import dev.outboxrelay.testkit.ItLogs;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPorts;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** The shaded jar as a subprocess, with its log in this run's {@link ItLogs} directory and its HTTP port known. */
final class RelayProcess implements AutoCloseable {

    static final Path JAR = Path.of("target", "outbox-relay.jar");
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    final Process process;
    final Path log;
    final int httpPort;

    private RelayProcess(Process process, Path log, int httpPort) {
        this.process = process;
        this.log = log;
        this.httpPort = httpPort;
    }

    /** {@code run} with the database and Kafka of the test kit; the password comes from the environment. */
    static RelayProcess run(String name, TestDatabase db, TestKafka kafka, Map<String, String> env,
                            String... extra) throws IOException {
        return run(name, db.jdbcUrl(), db, kafka, env, extra);
    }

    /** {@code run} against {@code jdbcUrl} (e.g. an address in front of the database) as {@code db}'s relay role. */
    static RelayProcess run(String name, String jdbcUrl, TestDatabase db, TestKafka kafka, Map<String, String> env,
                            String... extra) throws IOException {
        Map<String, String> all = new java.util.HashMap<>(Map.of("RELAY_DB_PASSWORD", db.relayPassword()));
        all.putAll(env);
        return runAs(name, jdbcUrl, db.relayUser(), kafka, all, extra);
    }

    /** {@code run} as {@code user}; the password (environment or file) comes from {@code env} and {@code extra}. */
    static RelayProcess runAs(String name, String jdbcUrl, String user, TestKafka kafka, Map<String, String> env,
                              String... extra) throws IOException {
        return runAs(List.of("-jar", JAR.toString()), name, jdbcUrl, user, kafka, env, extra);
    }

    /**
     * {@code run} of the jar with this module's test classes on the class path too (e.g. a Kafka producer
     * interceptor that injects a fault) and extra JVM options such as {@code -Dname=value}.
     */
    static RelayProcess runWithTestClasses(List<String> jvmOptions, String name, TestDatabase db, TestKafka kafka,
                                           String... extra) throws IOException {
        return runAs(jarWithTestClasses(jvmOptions), name, db.jdbcUrl(), db.relayUser(), kafka,
                Map.of("RELAY_DB_PASSWORD", db.relayPassword()), extra);
    }

    /** {@code run} against a broker at {@code bootstrap} (e.g. one in its own process). */
    static RelayProcess run(String name, TestDatabase db, String bootstrap, String... extra) throws IOException {
        return runAs(List.of("-jar", JAR.toString()), name, db.jdbcUrl(), db.relayUser(), bootstrap,
                Map.of("RELAY_DB_PASSWORD", db.relayPassword()), extra);
    }

    /** {@code run} of the jar with {@code jvmOptions} (e.g. the deploy files' heap flags) after the test default. */
    static RelayProcess runWithJvm(List<String> jvmOptions, String name, TestDatabase db, TestKafka kafka,
                                   String... extra) throws IOException {
        return runAs(jar(jvmOptions), name, db.jdbcUrl(), db.relayUser(), kafka,
                Map.of("RELAY_DB_PASSWORD", db.relayPassword()), extra);
    }

    /** The process's peak resident set (VmHWM) in MiB, from /proc. */
    long peakRssMib() throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(process.pid()), "status"))) {
            if (line.startsWith("VmHWM:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) / 1024;
            }
        }
        throw new IllegalStateException("no VmHWM in /proc/" + process.pid() + "/status");
    }

    private static RelayProcess runAs(List<String> launch, String name, String jdbcUrl, String user, TestKafka kafka,
                                      Map<String, String> env, String... extra) throws IOException {
        return runAs(launch, name, jdbcUrl, user, kafka.bootstrapServers(), env, extra);
    }

    /** The launch of the jar after {@code jvmOptions}. */
    static List<String> jar(List<String> jvmOptions) {
        List<String> launch = new ArrayList<>(jvmOptions);
        launch.addAll(List.of("-jar", JAR.toString()));
        return launch;
    }

    /** The launch of the jar with this module's test classes on the class path, after {@code jvmOptions}. */
    static List<String> jarWithTestClasses(List<String> jvmOptions) {
        List<String> launch = new ArrayList<>(jvmOptions);
        launch.addAll(List.of("-cp", JAR + java.io.File.pathSeparator + Path.of("target", "test-classes"),
                "dev.outboxrelay.cli.Main"));
        return launch;
    }

    /** {@code run} as {@code launch} says ({@link #jar}, {@link #jarWithTestClasses}), every part given. */
    static RelayProcess runAs(List<String> launch, String name, String jdbcUrl, String user, String bootstrap,
                              Map<String, String> env, String... extra) throws IOException {
        int port = freePort();
        List<String> cmd = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx384m"));
        cmd.addAll(dev.outboxrelay.testkit.TestJvm.OPTIONS);
        cmd.addAll(launch);
        cmd.addAll(List.of("run", "--db-url", jdbcUrl, "--db-user", user,
                "--kafka-bootstrap", bootstrap, "--http-host", "127.0.0.1",
                "--http-port", String.valueOf(port), "--probe-interval", "500ms"));
        cmd.addAll(List.of(extra));
        ProcessBuilder pb = new ProcessBuilder(cmd);
        pb.environment().remove("RELAY_DB_PASSWORD");
        pb.environment().putAll(env);
        Path log = ItLogs.file(name);
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        return new RelayProcess(pb.start(), log, port);
    }

    /** A port for a relay's HTTP endpoints that no other test JVM hands out ({@link TestPorts}). */
    static int freePort() {
        return TestPorts.reserve();
    }

    /** GET on the relay's endpoint; status -1 when nothing answers (yet). */
    HttpResponse<String> get(String path) {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + httpPort + path))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /**
     * Waits, at most {@code bound}, until this relay is publishing: ready <em>and</em> holding the table's lock
     * (readiness {@code "source":"publishing"}). "Ready" alone is not enough: a standby is ready too. Fails at once,
     * with the log's path, if the process exits meanwhile.
     */
    RelayProcess awaitPublishing(Duration bound) {
        org.awaitility.Awaitility.await(log + " publishing").atMost(bound).until(() -> {
            if (!process.isAlive()) {
                throw new AssertionError("the relay exited (" + process.exitValue() + ") before it published; see "
                        + log);
            }
            String body = readiness();
            // Both: "publishing" with a database or broker problem is reported as not ready.
            return body.contains("\"status\":\"ready\"") && body.contains("\"source\":\"publishing\"");
        });
        return this;
    }

    /** The readiness body, or "" when the endpoint does not answer. */
    String readiness() {
        HttpResponse<String> r = get("/health/ready");
        return r == null ? "" : r.body();
    }

    String logText() throws IOException {
        return Files.exists(log) ? Files.readString(log, StandardCharsets.UTF_8) : "";
    }

    /** SIGTERM, then the exit code (or -1 when it did not exit within {@code timeout}). */
    int terminate(Duration timeout) throws InterruptedException {
        process.destroy();
        return process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) ? process.exitValue() : -1;
    }

    /** SIGKILL, like a crash. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            kill();
        }
    }
}
