package dev.outboxrelay.bench;

import java.util.LinkedHashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The bench's poll family, smoke-sized: the pollers, their floor, the relay's poll modes (exactly-once too) and the
 * connector.
 */
class PollBenchSmokeIT {

    static final List<String> SLUGS = List.of("naive", "batched", "floor-poll", "poll-mark", "poll-delete", "poll-eos",
            "connect");

    @Test
    void everyPollScenarioRunsAndLosesNothing() throws Exception {
        BenchSmoke.run(new LinkedHashSet<>(SLUGS), List.of("poll/batched", "poll/naive", "poll/K", "steady/I",
                "steady\\(poll-delete\\)/I"));
    }
}
