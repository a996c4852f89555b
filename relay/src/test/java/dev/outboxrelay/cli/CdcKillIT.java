package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.testkit.DeliveryReport;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The real daemon in CDC mode ({@code java -jar outbox-relay.jar run --mode cdc}) is killed with SIGKILL again
 * and again while 30,000 events stream in, one burst per instance, each killed while it streams from its slot
 * (the rescan done) and after it marked part of its burst: afterwards every event is on the
 * topic, in per-key order, and the duplicates stay within the documented bound of 5 × max.batch.size per crash
 * (docs/cdc-mode.md: at most pipeline depth + 1 batches are unsettled when the relay dies).
 */
class CdcKillIT {

    private static final int MAX_BATCH_SIZE = 500;
    private static final int KILLS = 5;

    private KillScenario scenario;

    @BeforeEach
    void setUp() throws Exception {
        scenario = new KillScenario("cdc-kill-relay", List.of("--mode", "cdc", "--slot-name", "kill_it",
                "--heartbeat-interval", "1s", "--debezium.max.batch.size=" + MAX_BATCH_SIZE),
                KillScenario.Broker.shared(), 10, 3000);
    }

    @AfterEach
    void tearDown() throws Exception {
        scenario.close();
    }

    @Test
    void killMinus9DuringAStreamLosesNothingAndDuplicatesStayBounded() throws Exception {
        // Killed while streaming, not only during the start's rescan: the slot is active once Debezium streams.
        DeliveryReport report = scenario.runInBursts(KILLS, 2, 10, () -> scenario.database().queryLong(
                "SELECT count(*) FROM pg_replication_slots WHERE slot_name = 'kill_it' AND active") == 1);
        int bound = KILLS * 5 * MAX_BATCH_SIZE;
        System.out.printf("cdc kill -9 x%d: %d duplicates (bound %d)%n", KILLS, report.duplicateCount(), bound);
        assertThat(report.duplicateCount()).as("duplicates after %d kills: %s", KILLS, report)
                .isLessThanOrEqualTo(bound);
    }
}
