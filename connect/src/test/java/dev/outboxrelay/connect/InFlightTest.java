package dev.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class InFlightTest {

    @Test
    void outcomesComeBackInSeqOrderAndLeaveTheInFlightSet() {
        InFlight f = new InFlight();
        UUID a = UUID.randomUUID();
        UUID b = UUID.randomUUID();
        UUID c = UUID.randomUUID();
        f.add(10, a, "k1", 100);
        f.add(11, b, "k1", 200);
        f.add(12, c, "k2", 300);
        assertThat(f.seqs()).containsExactly(10, 11, 12);
        assertThat(f.ids()).isEqualTo(a + "," + b + "," + c);
        assertThat(f.bytes()).isEqualTo(600);
        f.outcome(11, true);
        f.outcome(10, false);
        f.outcome(99, true); // not ours (any more): ignored
        assertThat(f.takeOutcomes()).containsExactly(new InFlight.Settled(10, a, "k1", false),
                new InFlight.Settled(11, b, "k1", true));
        assertThat(f.seqs()).containsExactly(12);
        assertThat(f.bytes()).isEqualTo(300);
        assertThat(f.takeOutcomes()).isEmpty();
    }
}
