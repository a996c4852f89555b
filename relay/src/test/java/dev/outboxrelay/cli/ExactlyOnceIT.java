package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ItLogs;
import dev.outboxrelay.testkit.KafkaProcess;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import dev.outboxrelay.testkit.contract.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * {@code --delivery exactly-once} end to end: the real daemon, a real PostgreSQL and a broker in its own JVM. While
 * 30,000 events stream in from 2 writers the relay is SIGKILLed 5 times and halted once by a fault point right after
 * a Kafka commit, before its rows were marked in PostgreSQL: a {@code read_committed} consumer sees every event
 * exactly once, in per-key order. Also across a mode switch poll → cdc → poll.
 */
class ExactlyOnceIT {

    private static final int KEYS = 10;
    private static final int EVENTS_PER_KEY = 3000;
    private static final int SIGKILLS = 5;
    private static KafkaProcess kafka;

    @BeforeAll
    static void startKafka() throws Exception {
        kafka = KafkaProcess.start(ItLogs.file("exactly-once-kafka"));
    }

    @AfterAll
    static void stopKafka() {
        if (kafka != null) {
            kafka.close();
        }
    }

    private static List<String> poll(String relayName) {
        return List.of("--mode", "poll", "--relay-name", relayName, "--delivery", "exactly-once", "--batch-size", "500", "--pipeline-depth", "3",
                "--poll-interval", "100ms", "--standby-interval", "200ms");
    }

    private static List<String> cdc(String relayName) {
        return List.of("--mode", "cdc", "--relay-name", relayName, "--delivery", "exactly-once", "--slot-name", "eos_it",
                "--heartbeat-interval", "1s", "--standby-interval", "200ms", "--debezium.max.batch.size=500");
    }

    /** The fault point for one instance, halting it after a random number of commits. */
    private static List<String> haltAfterSomeCommits() {
        return List.of("-Doutboxrelay.test.haltAfterCommits=" + (2 + ThreadLocalRandom.current().nextInt(9)));
    }

    @Test
    void pollKilledFiveTimesAndOnceBetweenCommitAndMarkDeliversEveryEventOnce() throws Exception {
        int faulty = ThreadLocalRandom.current().nextInt(SIGKILLS + 1);
        try (KillScenario scenario = new KillScenario("exactly-once-poll", poll("eos-poll"), KillScenario.Broker.of(kafka),
                KEYS, EVENTS_PER_KEY).jvmOptions(n -> n == faulty ? haltAfterSomeCommits() : List.of())) {
            DeliveryReport report = scenario.runInBursts(SIGKILLS + 1, 2, 5, () -> true);
            assertExactlyOnce(report, scenario);
        }
    }

    @Test
    void cdcKilledFiveTimesAndOnceBetweenCommitAndMarkDeliversEveryEventOnce() throws Exception {
        int faulty = ThreadLocalRandom.current().nextInt(SIGKILLS + 1);
        try (KillScenario scenario = new KillScenario("exactly-once-cdc", cdc("eos-cdc"), KillScenario.Broker.of(kafka),
                KEYS, EVENTS_PER_KEY).jvmOptions(n -> n == faulty ? haltAfterSomeCommits() : List.of())) {
            DeliveryReport report = scenario.runInBursts(SIGKILLS + 1, 2, 10,
                    () -> slotActive(scenario));
            assertExactlyOnce(report, scenario);
        }
    }

    @Test
    void aModeSwitchPollCdcPollUnderExactlyOnceLosesAndDoublesNothing() throws Exception {
        List<List<String>> modes = List.of(poll("eos-switch"), cdc("eos-switch"), poll("eos-switch"));
        try (KillScenario scenario = new KillScenario("exactly-once-switch", modes.get(0), KillScenario.Broker.of(kafka),
                KEYS, 2000)) {
            scenario.modeArgs(modes::get);
            // Each instance is SIGKILLed mid-stream, the next one runs the other mode; the last one finishes.
            DeliveryReport report = scenario.runInBursts(2, 2, 10,
                    () -> scenario.instances() != 2 || slotActive(scenario));
            assertExactlyOnce(report, scenario);
        }
    }

    @Test
    void twoInstancesOfOneRelayTheFencedOneStopsPublishingAndNothingIsDoubled() throws Exception {
        Path logA = ItLogs.file("exactly-once-fence-a");
        Path logB = ItLogs.file("exactly-once-fence-b");
        Files.deleteIfExists(logA);
        Files.deleteIfExists(logB);
        try (KillScenario scenario = new KillScenario("exactly-once-fence", poll("eos-fence"),
                KillScenario.Broker.of(kafka), KEYS, 1000)) {
            scenario.createTopic();
            TestDatabase db = scenario.database();
            OutboxWriter writer = new OutboxWriter(db, "public.outbox");
            Process a = scenario.start(logA);
            Process b = null;
            try {
                List<String> expected = new ArrayList<>(writer.insert(List.of(OutboxWriter.Row.of("Stream", "p", 0))));
                await().atMost(Duration.ofMinutes(1)).until(() -> unsent(db) == 0);
                b = scenario.start(logB);
                await().atMost(Duration.ofMinutes(1)).until(() -> Files.readString(logB).contains("standing by"));
                // The second half of the load waits for B's takeover, so B has work of its own whatever the timing:
                // on a loaded machine A used to relay all of it before B started (the test then waited for rows
                // that did not exist).
                AtomicBoolean tookOver = new AtomicBoolean();
                int half = KEYS * 1000 / 2;
                Workload[] running = new Workload[1];
                Workload load = Workload.startThrottled(writer, "Stream", KEYS, 1000, 2, 10,
                        () -> tookOver.get() || running[0] == null || running[0].committedCount() < half);
                running[0] = load;
                await().atMost(Duration.ofMinutes(1)).until(() -> load.committedCount() >= half / 4);

                // A freezes mid-stream (a long GC pause, a stalled VM) and loses its database session: B takes over
                // the table and, starting its transactional producer, fences A's.
                signal(a, "STOP");
                db.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE"
                        + " 'eos-fence@%:" + a.pid() + "/poll'");
                await().atMost(Duration.ofMinutes(1)).until(() -> Files.readString(logB).contains("Exactly-once"
                        + " delivery as"));
                long takenOver = sent(db);
                tookOver.set(true);
                await().atMost(Duration.ofMinutes(1)).until(() -> sent(db) > takenOver);
                long resumedAt = Files.size(logA);
                signal(a, "CONT");

                expected.addAll(load.join());
                DeliveryReport report = DeliveryReport.of(scenario.read(new HashSet<>(expected),
                        Duration.ofMinutes(2)), expected);
                assertThat(report.nothingLost()).as("%s", report).isTrue();
                assertThat(report.inPerKeyOrder()).as("%s", report).isTrue();
                assertThat(report.duplicateCount()).as("read_committed duplicates: %s", report).isZero();
                await().atMost(Duration.ofMinutes(1)).until(() -> unsent(db) == 0);
                assertThat(a.isAlive()).as("the fenced instance stands by, it does not exit (see %s)", logA).isTrue();
                // A notices when it next reads from Kafka or its dead session, which a loaded machine may delay.
                try {
                    await().atMost(Duration.ofSeconds(20)).until(() -> Files.readString(logA)
                            .substring((int) resumedAt).contains("standing by"));
                } catch (org.awaitility.core.ConditionTimeoutException slow) {
                    // What it waits for goes to its log. A commit or abort of the fenced producer blocks at most its
                    // max.block.ms (5 s by default with exactly-once) per call: it publishes nothing meanwhile.
                    KillScenario.threadDump(a, logA);
                    await().atMost(Duration.ofSeconds(90)).until(() -> Files.readString(logA)
                            .substring((int) resumedAt).contains("standing by"));
                }
                assertThat(Files.readString(logA).substring((int) resumedAt)).as("A after it resumed (see %s)", logA)
                        .doesNotContain("Active relay of public.outbox now");
            } finally {
                signal(a, "CONT");
                a.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                if (b != null) {
                    b.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
                }
            }
        }
    }

    private static long unsent(TestDatabase db) {
        return db.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL");
    }

    private static long sent(TestDatabase db) {
        return db.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL");
    }

    private static void signal(Process p, String signal) throws Exception {
        new ProcessBuilder("kill", "-" + signal, String.valueOf(p.pid())).inheritIO().start().waitFor();
    }

    private static boolean slotActive(KillScenario scenario) {
        return scenario.database().queryLong("SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'eos_it'"
                + " AND active") == 1;
    }

    private static void assertExactlyOnce(DeliveryReport report, KillScenario scenario) throws Exception {
        assertThat(report.nothingLost()).as("%s", report).isTrue();
        assertThat(report.inPerKeyOrder()).as("%s", report).isTrue();
        assertThat(report.duplicateCount()).as("read_committed duplicates: %s (see %s)", report, scenario.log())
                .isZero();
        List<String> lines = new ArrayList<>(Files.readAllLines(scenario.log()));
        assertThat(lines).anyMatch(l -> l.contains("Exactly-once delivery as"));
        CliRun verify = scenario.verify("--isolation", "read_committed");
        assertThat(verify.exitCode()).as("%s", verify).isZero();
        assertThat(verify.out()).contains("duplicates: 0 records of 0 event ids", "each event exactly once");
    }
}
