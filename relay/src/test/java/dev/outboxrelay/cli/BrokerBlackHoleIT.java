package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.ItLogs;
import dev.outboxrelay.testkit.KafkaProcess;
import dev.outboxrelay.testkit.Pacing;
import dev.outboxrelay.testkit.Throughout;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A broker that stops answering without closing anything (its process frozen with SIGSTOP: the kernel still takes
 * connections and requests), for longer than the producer's request timeout, while events keep being written: both
 * modes notice (not ready, naming Kafka) within the documented 15 s plus a probe, stay live (an outage is not a
 * reason to restart), and once the broker answers again deliver everything in per-key order. Also the slow broker:
 * the same path, only shorter.
 */
class BrokerBlackHoleIT {

    /** Longer than the relays' request timeout, which the test lowers to 15 s (Kafka's default is 30 s). */
    private static final Duration BLACK_HOLE = Duration.ofSeconds(25);

    @Test
    void aBrokerThatStopsAnsweringIsDetectedAndEverythingIsDeliveredOnceItAnswersAgain() throws Exception {
        try (KafkaProcess kafka = KafkaProcess.start(ItLogs.file("black-hole-broker"));
             BothModesRun run = new BothModesRun("broker-hole")) {
            for (String mode : BothModesRun.MODES) {
                kafka.createTopic(run.topic(mode), 3);
            }
            run.start(relay -> relay.bootstrap(kafka.bootstrapServers()), "--kafka.request.timeout.ms=15000");
            run.write(25, 100, Duration.ofSeconds(3)); // relaying under load before the broker freezes

            kafka.freeze();
            long frozen = System.nanoTime();
            for (String mode : run.relays.keySet()) {
                RelayProcess relay = run.relays.get(mode);
                await().atMost(Duration.ofSeconds(35)).until(() -> BothModesRun.status(relay, "/health/ready") == 503);
                System.out.printf("BrokerBlackHoleIT %s: not ready %d ms after the broker froze%n", mode,
                        (System.nanoTime() - frozen) / 1_000_000);
                assertThat(relay.readiness()).as("%s names Kafka", mode).contains("\"kafka\":\"unreachable");
            }
            Throughout.holds("both relays stay live while the broker is a black hole",
                    BLACK_HOLE.minusNanos(System.nanoTime() - frozen), () -> run.relays.values().stream()
                            .allMatch(relay -> BothModesRun.status(relay, "/health/live") == 200));
            kafka.thaw();
            Pacing.pause(5000); // writers go on while the relays recover
            run.stopWriting();

            for (String mode : run.relays.keySet()) {
                run.assertDeliveredInOrder(mode, kafka.bootstrapServers(), Map.of());
            }
        }
    }
}
