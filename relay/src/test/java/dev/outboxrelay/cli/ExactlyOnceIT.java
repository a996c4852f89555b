package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.KafkaProcess;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
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
        Files.createDirectories(Path.of("target", "it-logs"));
        kafka = KafkaProcess.start(Path.of("target", "it-logs", "exactly-once-kafka.log"));
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
        return List.of("-Doutboxrelay.test.haltAfterCommits=" + (3 + ThreadLocalRandom.current().nextInt(20)));
    }

    @Test
    void pollKilledFiveTimesAndOnceBetweenCommitAndMarkDeliversEveryEventOnce() throws Exception {
        int faulty = ThreadLocalRandom.current().nextInt(SIGKILLS + 1);
        try (KillScenario scenario = new KillScenario("exactly-once-poll", poll("eos-poll"), KillScenario.Broker.of(kafka),
                KEYS, EVENTS_PER_KEY).jvmOptions(n -> n == faulty ? haltAfterSomeCommits() : List.of())) {
            DeliveryReport report = scenario.runInBursts(SIGKILLS + 1, 2, 5, Duration.ofMillis(300), () -> true);
            assertExactlyOnce(report, scenario);
        }
    }

    @Test
    void cdcKilledFiveTimesAndOnceBetweenCommitAndMarkDeliversEveryEventOnce() throws Exception {
        int faulty = ThreadLocalRandom.current().nextInt(SIGKILLS + 1);
        try (KillScenario scenario = new KillScenario("exactly-once-cdc", cdc("eos-cdc"), KillScenario.Broker.of(kafka),
                KEYS, EVENTS_PER_KEY).jvmOptions(n -> n == faulty ? haltAfterSomeCommits() : List.of())) {
            DeliveryReport report = scenario.runInBursts(SIGKILLS + 1, 2, 10, Duration.ofMillis(300),
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
            DeliveryReport report = scenario.runInBursts(2, 2, 10, Duration.ofMillis(300),
                    () -> scenario.instances() != 2 || slotActive(scenario));
            assertExactlyOnce(report, scenario);
        }
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
    }
}
