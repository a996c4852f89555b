package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ItLogs;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import dev.outboxrelay.testkit.contract.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

/**
 * The kill -9 scenario shared by the mode-specific ITs: the real daemon ({@code java -jar outbox-relay.jar run})
 * is started and SIGKILLed again and again while events stream in (by default 50,000, one burst per instance);
 * then one last instance publishes the rest. Owns the subprocess, its log ({@code <name>.log} in this run's {@code ItLogs} directory) and the test database.
 */
final class KillScenario implements AutoCloseable {

    /** 10 keys x 5,000 events = 50,000. */
    static final int KEYS = 10;
    static final int EVENTS_PER_KEY = 5000;
    /** How long an instance may take to mark its share of a burst before it is killed. */
    private static final Duration KILL_BOUND = Duration.ofMinutes(1);

    /** Where the scenario's topics are: a broker the test kit runs in-process or in its own JVM. */
    record Broker(String bootstrapServers, java.util.function.BiConsumer<String, Integer> createTopic,
                  TopicReader reader) {
        static Broker shared() {
            TestKafka kafka = TestKafka.shared();
            return new Broker(kafka.bootstrapServers(), kafka::createTopic, TopicReader.of(kafka));
        }

        static Broker of(dev.outboxrelay.testkit.KafkaProcess kafka) {
            return new Broker(kafka.bootstrapServers(), kafka::createTopic, new TopicReader(kafka.bootstrapServers()));
        }
    }

    private final TestDatabase database;
    private final Broker kafka;
    private final Path log;
    private final int keys;
    private final int eventsPerKey;
    /** JVM options of the n-th instance (0-based), e.g. a fault point. */
    private java.util.function.IntFunction<List<String>> jvmOptions = n -> List.of();
    /** The mode arguments of the n-th instance (0-based): {@code modeArgs} unless a mode switch is scripted. */
    private java.util.function.IntFunction<List<String>> modeArgsOf;
    private int instances;
    /** Per scenario: the ITs share one broker. */
    private final String prefix = "kill-it-" + UUID.randomUUID().toString().substring(0, 8);
    private final String topic = prefix + ".Stream";
    private Process relay;

    /** @param modeArgs {@code --mode ...} and the mode's own options */
    KillScenario(String name, List<String> modeArgs) throws Exception {
        this(name, modeArgs, Broker.shared(), KEYS, EVENTS_PER_KEY);
    }

    /** A scenario on {@code kafka} writing {@code keys} x {@code eventsPerKey} events. */
    KillScenario(String name, List<String> modeArgs, Broker kafka, int keys, int eventsPerKey) throws Exception {
        assertThat(RelayProcess.JAR).as("the shaded jar is built in package, before this integration test").exists();
        this.modeArgsOf = n -> modeArgs;
        this.kafka = kafka;
        this.keys = keys;
        this.eventsPerKey = eventsPerKey;
        database = MigratedDatabases.create("killit");
        database.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + database.relayUser());
        log = ItLogs.file(name);
        Files.deleteIfExists(log);
    }

    TestDatabase database() {
        return database;
    }

    /** The JVM options of each instance by its number (0-based), e.g. a fault point for one of them. */
    KillScenario jvmOptions(java.util.function.IntFunction<List<String>> options) {
        this.jvmOptions = options;
        return this;
    }

    /** The mode arguments of each instance by its number (0-based): a mode switch between kills. */
    KillScenario modeArgs(java.util.function.IntFunction<List<String>> args) {
        this.modeArgsOf = args;
        return this;
    }

    /** Instances started so far. */
    int instances() {
        return instances;
    }

    /** The topic the events go to. */
    String topic() {
        return topic;
    }

    /** Creates the scenario's topic, for scenarios that start instances themselves. */
    void createTopic() {
        kafka.createTopic().accept(topic, 3);
    }

    /** Reads the scenario's topic ({@code read_committed}) until every id arrived or {@code timeout} passed. */
    List<ReadRecord> read(java.util.Set<String> ids, Duration timeout) {
        return kafka.reader().readUntilIds(topic, ids, timeout);
    }

    /** {@code verify} of this scenario's table and topics, as an operator runs it, with {@code extra} options. */
    CliRun verify(String... extra) {
        List<String> args = new ArrayList<>(List.of("verify", "--db-url", database.jdbcUrl(), "--db-user",
                database.relayUser(), "--kafka-bootstrap", kafka.bootstrapServers(), "--topic-template",
                prefix + ".${aggregateType}", "--since", "1h"));
        args.addAll(List.of(extra));
        return CliRun.of(java.util.Map.of("RELAY_DB_PASSWORD", database.relayPassword()), args.toArray(String[]::new));
    }

    /** The relay's log. */
    Path log() {
        return log;
    }

    /**
     * One burst of events per instance, each instance ended while its burst is being written: it is started, shown
     * to publish (a probe row of its own is marked, and {@code streaming} holds), its burst's writers start, and
     * once it marked a random 10 to 50 % of the burst it is SIGKILLed, the writers still writing; an instance with
     * {@link #jvmOptions} of its own (a fault point) ends itself instead (exit 137). A last instance publishes the
     * rest. Asserts nothing lost, per-key order, nothing left unsent, a clean SIGTERM; returns the delivery report.
     * Gating each burst on its instance keeps the kills mid-stream however slowly a loaded machine starts them.
     */
    DeliveryReport runInBursts(int bursts, int writerThreads, long pauseMillis, BooleanSupplier streaming)
            throws Exception {
        kafka.createTopic().accept(topic, 3);
        OutboxWriter writer = new OutboxWriter(database, "public.outbox");
        List<String> expected = new ArrayList<>();
        int perKey = eventsPerKey / bursts;
        for (int i = 0; i < bursts; i++) {
            relay = start();
            Process current = relay;
            List<String> probe = writer.insert(List.of(dev.outboxrelay.testkit.contract.OutboxWriter.Row.of("Stream",
                    "probe-" + i, 0)));
            expected.addAll(probe);
            await().atMost(Duration.ofMinutes(2)).pollInterval(Duration.ofMillis(50))
                    .until(() -> (marked(probe) && streaming.getAsBoolean()) || !current.isAlive());
            long before = sent();
            // The writers stay at most a fifth of the burst ahead of what the relay marked: the kill below, at 10 to
            // 50 % of the burst marked, then always finds them writing, however slowly a loaded machine relays.
            long lead = Math.max(1, (long) keys * perKey / 5);
            // Once the instance is gone the writers finish the burst freely, for the next one to catch up.
            java.util.concurrent.atomic.AtomicReference<Workload> self = new java.util.concurrent.atomic.AtomicReference<>();
            MarkedCount marked = new MarkedCount();
            Workload burst = Workload.startThrottled(writer, "Stream", keys, perKey, writerThreads, pauseMillis,
                    () -> self.get() == null || !current.isAlive()
                            || self.get().committedSoFar().size() - (marked.get() - before) < lead);
            self.set(burst);
            if (!jvmOptions.apply(instances - 1).isEmpty()) {
                // A fault point halts this instance by itself (exit 137, like a SIGKILL), at the moment it names.
                await().atMost(Duration.ofMinutes(2)).until(() -> !current.isAlive());
                assertThat(current.exitValue()).as("the fault point halted relay %d (see %s)", i, log).isEqualTo(137);
                assertThat(burst.isDone()).as("halted while burst %d was being written", i).isFalse();
            } else {
                assertThat(current.isAlive()).as("relay %d runs (see %s)", i, log).isTrue();
                // A random moment, by progress rather than time: once it marked 10 to 50 % of the burst.
                long killAt = (long) (keys * perKey * (0.1 + 0.4 * ThreadLocalRandom.current().nextDouble()));
                long burstStarted = System.nanoTime();
                // Every 50 ms: each look counts the marked rows of the whole table (tens of thousands), and the
                // writers stay a fifth of the burst ahead, so the kill still finds them writing.
                try {
                    await().atMost(KILL_BOUND).pollInterval(Duration.ofMillis(50))
                            .until(() -> sent() - before >= killAt || !current.isAlive());
                } catch (org.awaitility.core.ConditionTimeoutException e) {
                    threadDump(current, log); // what the stalled instance waits on, in its own log
                    throw e;
                }
                assertThat(burst.isDone()).as("relay %d killed while burst %d was being written", i, i).isFalse();
                assertThat(current.isAlive()).as("relay %d runs until its SIGKILL (see %s)", i, log).isTrue();
                current.destroyForcibly(); // SIGKILL: no shutdown hook, no draining
                assertThat(current.waitFor(30, TimeUnit.SECONDS)).isTrue();
                // How close the kill came to its bound, in the relay's log (the instance is gone, nothing else
                // writes to it now).
                Files.writeString(log, String.format("[KillScenario] burst %d: SIGKILL at %d of %d marked, %d ms"
                        + " after the burst's writers started (bound %d s)%n", i, sent() - before, killAt,
                        TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - burstStarted), KILL_BOUND.toSeconds()),
                        java.nio.file.StandardOpenOption.APPEND);
            }
            expected.addAll(burst.join());
        }
        relay = start();
        List<ReadRecord> records = kafka.reader().readUntilIds(topic, new HashSet<>(expected), Duration.ofMinutes(3));
        DeliveryReport report = DeliveryReport.of(records, expected);
        assertThat(report.nothingLost()).as("%s", report).isTrue();
        assertThat(report.inPerKeyOrder()).as("%s", report).isTrue();
        await().atMost(Duration.ofMinutes(1)).until(() ->
                database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL") == 0);
        relay.destroy(); // SIGTERM: graceful
        if (!relay.waitFor(15, TimeUnit.SECONDS)) {
            threadDump(relay, log); // a stop that hangs is diagnosed in the relay's log, then asserted
        }
        assertThat(relay.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(relay.exitValue()).isZero();
        return report;
    }

    /** Appends the threads of the relay {@code process} to {@code log} (jstack of this JDK, if it has one). */
    static void threadDump(Process process, Path log) throws Exception {
        Path jstack = Path.of(System.getProperty("java.home"), "bin", "jstack");
        if (Files.isExecutable(jstack)) {
            new ProcessBuilder(jstack.toString(), String.valueOf(process.pid())).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start().waitFor();
        }
    }

    /** {@link #sent()}, asked at most every 50 ms however many writers ask: a count is not free. */
    private final class MarkedCount {
        private long value;
        private long askedNanos;

        synchronized long get() {
            if (System.nanoTime() - askedNanos > TimeUnit.MILLISECONDS.toNanos(50)) {
                value = sent();
                askedNanos = System.nanoTime();
            }
            return value;
        }
    }

    private boolean marked(List<String> ids) {
        return database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL AND id = '" + ids.get(0)
                + "'") == 1;
    }

    private long sent() {
        return database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL");
    }

    private Process start() throws Exception {
        return start(log);
    }

    /**
     * Starts one more instance logging to {@code instanceLog}; the caller owns it (for scenarios of several
     * instances at once). The scenario's topic is created on first use.
     */
    Process start(Path instanceLog) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx512m"));
        // C1 again (803e2b7 had put C2 back after a CDC burst missed its 1-minute bound, before the test kit reused
        // its connections): in a full fresh run each burst reached its kill point 0.7-8.5 s after its writers started.
        command.addAll(dev.outboxrelay.testkit.TestJvm.OPTIONS);
        command.addAll(jvmOptions.apply(instances++));
        // For diagnosis by hand, e.g. -Dkillscenario.extraJvm=-Dlogback.configurationFile=debug.xml (unset in CI).
        command.addAll(dev.outboxrelay.testkit.TestJvm.words(System.getProperty("killscenario.extraJvm")));
        command.addAll(List.of("-jar", RelayProcess.JAR.toString(), "run"));
        command.addAll(modeArgsOf.apply(instances - 1));
        command.addAll(List.of("--db-url", database.jdbcUrl(), "--db-user", database.relayUser(),
                "--kafka-bootstrap", kafka.bootstrapServers(), "--topic-template", prefix + ".${aggregateType}",
                "--http-port", "0"));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("RELAY_DB_PASSWORD", database.relayPassword());
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(instanceLog.toFile()));
        return pb.start();
    }

    @Override
    public void close() throws Exception {
        if (relay != null && relay.isAlive()) {
            relay.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
        }
        database.drop();
    }
}
