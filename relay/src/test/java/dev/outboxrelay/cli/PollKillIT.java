package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.testkit.DeliveryReport;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The real daemon ({@code java -jar outbox-relay.jar run --mode poll}) is killed with SIGKILL again and again
 * while 50,000 events stream in: afterwards every event is on the topic, in per-key order, and the duplicates
 * stay within the documented bound of pipeline depth × batch size per crash.
 */
class PollKillIT {

    private static final int BATCH_SIZE = 500;
    private static final int PIPELINE_DEPTH = 3;
    private static final int KILLS = 6;

    private KillScenario scenario;

    @BeforeEach
    void setUp() throws Exception {
        scenario = new KillScenario("poll-kill-relay", List.of("--mode", "poll",
                "--batch-size", String.valueOf(BATCH_SIZE), "--pipeline-depth", String.valueOf(PIPELINE_DEPTH),
                "--poll-interval", "100ms", "--standby-interval", "200ms"));
    }

    @AfterEach
    void tearDown() throws Exception {
        scenario.close();
    }

    @Test
    void killMinus9DuringAStreamLosesNothingAndDuplicatesStayBounded() throws Exception {
        DeliveryReport report = scenario.runInBursts(KILLS, 4, 5, () -> true);
        int bound = KILLS * PIPELINE_DEPTH * BATCH_SIZE;
        System.out.printf("poll kill -9 x%d: %d duplicates (bound %d)%n", KILLS, report.duplicateCount(), bound);
        assertThat(report.duplicateCount()).as("duplicates after %d kills: %s", KILLS, report)
                .isLessThanOrEqualTo(bound);
    }
}
