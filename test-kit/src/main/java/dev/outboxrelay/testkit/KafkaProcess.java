package dev.outboxrelay.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;

/**
 * A Kafka broker in its own JVM, with Kafka's own default server JVM options, as it runs in production. In the
 * bench JVM its garbage collection paused the broker together with the writer and the consumer: in one steady
 * phase 18 young pauses of 46 ms (median) to 116 ms froze acknowledgements and deliveries for 1.5 % of the time,
 * which is where the measured p99 came from, not from the relay. Its own process can also be frozen
 * ({@link #freeze()}): the kernel still accepts connections and data but nothing answers, a black hole.
 */
public final class KafkaProcess implements AutoCloseable {

    /** {@code kafka-server-start.sh} defaults: KAFKA_HEAP_OPTS and KAFKA_JVM_PERFORMANCE_OPTS (G1 part). */
    public static final List<String> JVM_OPTIONS = List.of("-Xmx1G", "-Xms1G", "-XX:+UseG1GC", "-XX:MaxGCPauseMillis=20",
            "-XX:InitiatingHeapOccupancyPercent=35", "-XX:+ExplicitGCInvokesConcurrent");
    private static final long START_TIMEOUT_SECONDS = 120;

    private final Process process;
    private final String bootstrap;
    private final Admin admin;

    private KafkaProcess(Process process, String bootstrap) {
        this.process = process;
        this.bootstrap = bootstrap;
        this.admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    /** Starts the broker; its own log goes to {@code log}. */
    public static KafkaProcess start(Path log) throws IOException, InterruptedException {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(JVM_OPTIONS);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(KafkaProcessMain.class.getName());
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        Process process = pb.start();
        CompletableFuture<String> ready = new CompletableFuture<>();
        BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        // Reads the ready line, then keeps draining stdout so the broker can never block on a full pipe.
        Thread reader = new Thread(() -> {
            try {
                for (String line = out.readLine(); line != null; line = out.readLine()) {
                    if (line.startsWith(KafkaProcessMain.READY_PREFIX)) {
                        ready.complete(line.substring(KafkaProcessMain.READY_PREFIX.length()).trim());
                    }
                }
            } catch (IOException e) {
                // the process went away
            }
            ready.complete(null);
        }, "bench-broker-stdout");
        reader.setDaemon(true);
        reader.start();
        String bootstrap;
        try {
            bootstrap = ready.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            bootstrap = null;
        }
        if (bootstrap == null) {
            process.destroyForcibly();
            throw new IllegalStateException("the Kafka broker process did not start within " + START_TIMEOUT_SECONDS
                    + " s; see " + log);
        }
        return new KafkaProcess(process, bootstrap);
    }

    /** {@code host:port} of the broker. */
    public String bootstrapServers() {
        return bootstrap;
    }

    /** The broker's process id, so its CPU time counts with the bench's harness. */
    public long pid() {
        return process.pid();
    }

    /** Creates a topic with replication factor 1 and waits until every partition has a leader. */
    public void createTopic(String name, int partitions) {
        try {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) 1))).all().get(60, TimeUnit.SECONDS);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!hasLeaders(name)) {
                if (System.nanoTime() - deadline > 0) {
                    throw new TimeoutException("no leader for every partition of " + name);
                }
                Thread.sleep(50);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topic " + name, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not create topic " + name, e);
        }
    }

    /** Whether every partition of {@code name} has a leader hosting it; false while the new topic is being created. */
    private boolean hasLeaders(String name) throws InterruptedException, ExecutionException, TimeoutException {
        try {
            return HostedPartitions.all(admin, admin.describeTopics(List.of(name)).allTopicNames()
                    .get(60, TimeUnit.SECONDS));
        } catch (ExecutionException e) {
            // Right after creation a loaded broker may not serve the topic's metadata yet (seen in CI).
            if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
                return false;
            }
            throw e;
        }
    }

    /**
     * Stops the broker's process (SIGSTOP) without closing a socket: connections are accepted by the kernel and
     * requests sent, but nothing is answered until {@link #thaw()}. A half-dead network path, as clients see it.
     */
    public void freeze() {
        signal("STOP");
    }

    /** Lets a {@link #freeze() frozen} broker run again (SIGCONT); it answers what waited. */
    public void thaw() {
        signal("CONT");
    }

    private void signal(String name) {
        try {
            Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
            if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException("kill -" + name + " failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        }
    }

    @Override
    public void close() {
        thaw(); // a frozen broker cannot stop
        admin.close();
        try {
            process.getOutputStream().close(); // KafkaProcessMain stops the broker at end of input
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (IOException e) {
            process.destroyForcibly();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
