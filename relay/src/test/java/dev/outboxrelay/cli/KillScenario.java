package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.DeliveryReport;
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
 * is started and SIGKILLed again and again while 50,000 events stream in; then one last instance publishes the
 * rest. Owns the subprocess, its log ({@code target/it-logs/<name>.log}) and the test database.
 */
final class KillScenario implements AutoCloseable {

    static final Path JAR = Path.of("target", "outbox-relay.jar");
    /** 10 keys x 5,000 events = 50,000. */
    static final int KEYS = 10;
    static final int EVENTS_PER_KEY = 5000;

    private final TestDatabase database;
    private final TestKafka kafka = TestKafka.shared();
    private final Path log;
    private final List<String> modeArgs;
    /** Per scenario: the ITs share one broker. */
    private final String prefix = "kill-it-" + UUID.randomUUID().toString().substring(0, 8);
    private final String topic = prefix + ".Stream";
    private Process relay;

    /** @param modeArgs {@code --mode ...} and the mode's own options */
    KillScenario(String name, List<String> modeArgs) throws Exception {
        assertThat(JAR).as("the shaded jar is built in package, before this integration test").exists();
        this.modeArgs = modeArgs;
        database = MigratedDatabases.create("killit");
        database.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + database.relayUser());
        Files.createDirectories(Path.of("target", "it-logs"));
        log = Path.of("target", "it-logs", name + ".log");
        Files.deleteIfExists(log);
    }

    TestDatabase database() {
        return database;
    }

    /**
     * Writes 50,000 events with {@code writerThreads} threads pausing {@code pauseMillis} after each commit, kills
     * the relay {@code kills} times (each instance lives {@code minUp} plus up to {@code jitter}, and then, when
     * {@code readyToKill} is given, until it marked at least one more row and {@code readyToKill} holds), then
     * lets a last instance finish. Asserts
     * that nothing is lost, per-key order, nothing left unsent and a clean SIGTERM; returns the delivery report.
     */
    DeliveryReport run(int kills, int writerThreads, long pauseMillis, Duration minUp, Duration jitter,
                       BooleanSupplier readyToKill) throws Exception {
        kafka.createTopic(topic, 3);
        Workload load = Workload.start(new OutboxWriter(database, "public.outbox"), "Stream", KEYS, EVENTS_PER_KEY,
                writerThreads, pauseMillis);
        for (int i = 0; i < kills; i++) {
            long sent = sent();
            relay = start();
            Thread.sleep(minUp.toMillis() + ThreadLocalRandom.current().nextLong(jitter.toMillis() + 1));
            if (readyToKill != null) {
                await().atMost(Duration.ofMinutes(1)).pollInterval(Duration.ofMillis(100))
                        .until(() -> (sent() > sent && readyToKill.getAsBoolean()) || !relay.isAlive());
            }
            assertThat(relay.isAlive()).as("relay %d is still running before its SIGKILL (see %s)", i, log).isTrue();
            relay.destroyForcibly(); // SIGKILL: no shutdown hook, no draining
            assertThat(relay.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        assertThat(load.isDone()).as("the relay was killed %d times while events were still being written", kills)
                .isFalse();
        List<String> expected = load.join();
        assertThat(expected).hasSize(KEYS * EVENTS_PER_KEY);

        relay = start();
        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(topic, new HashSet<>(expected),
                Duration.ofMinutes(3));
        DeliveryReport report = DeliveryReport.of(records, expected);
        assertThat(report.nothingLost()).as("%s", report).isTrue();
        assertThat(report.inPerKeyOrder()).as("%s", report).isTrue();
        await().atMost(Duration.ofMinutes(1)).until(() ->
                database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL") == 0);

        relay.destroy(); // SIGTERM: graceful
        assertThat(relay.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(relay.exitValue()).isZero();
        return report;
    }

    private long sent() {
        return database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL");
    }

    private Process start() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(List.of(java, "-Xmx512m", "-jar", JAR.toString(), "run"));
        command.addAll(modeArgs);
        command.addAll(List.of("--db-url", database.jdbcUrl(), "--db-user", database.relayUser(),
                "--kafka-bootstrap", kafka.bootstrapServers(), "--topic-template", prefix + ".${aggregateType}",
                "--http-port", "0"));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("RELAY_DB_PASSWORD", database.relayPassword());
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
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
