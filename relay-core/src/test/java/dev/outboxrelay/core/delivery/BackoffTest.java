package dev.outboxrelay.core.delivery;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void delaysDoubleUpToTheCapWithEqualJitter() {
        Backoff backoff = Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(1), new SplittableRandom(7));
        long[] ceilings = {100, 200, 400, 800, 1000, 1000, 1000};
        for (long ceiling : ceilings) {
            long delay = backoff.nextDelayMillis();
            assertThat(delay).as("delay under ceiling %d", ceiling).isBetween(ceiling / 2, ceiling);
        }
        assertThat(backoff.isBackingOff()).isTrue();
    }

    @Test
    void jitterSpreadsTheDelaysOverTheUpperHalf() {
        long min = Long.MAX_VALUE;
        long max = 0;
        SplittableRandom random = new SplittableRandom(11);
        for (int i = 0; i < 2_000; i++) {
            Backoff backoff = Backoff.exponential(Duration.ofMillis(1000), Duration.ofMillis(1000), random);
            long delay = backoff.nextDelayMillis();
            min = Math.min(min, delay);
            max = Math.max(max, delay);
        }
        assertThat(min).isBetween(500L, 550L);
        assertThat(max).isBetween(950L, 1000L);
    }

    @Test
    void resetStartsOverAndManyFailuresDoNotOverflow() {
        Backoff backoff = Backoff.exponential(Duration.ofMillis(100), Duration.ofSeconds(10), new SplittableRandom(3));
        for (int i = 0; i < 200; i++) {
            assertThat(backoff.nextDelayMillis()).isBetween(50L, 10_000L);
        }
        backoff.reset();
        assertThat(backoff.isBackingOff()).isFalse();
        assertThat(backoff.nextDelayMillis()).isBetween(50L, 100L);
    }

    @Test
    void aNonPositiveStartIsRefused() {
        assertThatThrownBy(() -> Backoff.exponential(Duration.ZERO, Duration.ofSeconds(1)))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("initial backoff must be positive");
    }
}
