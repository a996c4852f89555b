package dev.outboxrelay.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The bench's CDC family, smoke-sized: stock Debezium, its floor and the relay's CDC modes (exactly-once too). */
class CdcBenchSmokeIT {

    static final List<String> SLUGS = List.of("debezium", "floor-cdc", "cdc", "cdc-delete", "cdc-eos");

    @Test
    void everyCdcScenarioRunsAndLosesNothing() throws Exception {
        BenchSmoke.run(new LinkedHashSet<>(SLUGS), List.of("cdc/debezium", "cdc/K", "steady\\(cdc\\)/I"));
    }

    @Test
    void theTwoFamiliesAreTheWholeBench() {
        List<String> both = new ArrayList<>(PollBenchSmokeIT.SLUGS);
        both.addAll(SLUGS);
        assertThat(both).containsExactlyInAnyOrderElementsOf(Bench.SLUGS);
    }
}
