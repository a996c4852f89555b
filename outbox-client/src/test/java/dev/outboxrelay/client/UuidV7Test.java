package dev.outboxrelay.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.UUID;
import org.junit.jupiter.api.Test;

class UuidV7Test {

    @Test
    void idsCarryVersionSevenTheVariantAndTheirMillisecond() {
        long before = System.currentTimeMillis();
        UUID id = UuidV7.next();
        assertThat(id.version()).isEqualTo(7);
        assertThat(id.variant()).isEqualTo(2);
        assertThat(UuidV7.millisOf(id)).isBetween(before, System.currentTimeMillis() + 1);
        assertThatThrownBy(() -> UuidV7.millisOf(UUID.randomUUID())).hasMessageStartingWith("not a UUIDv7: ");
    }

    @Test
    void idsIncreaseEvenWithinOneMillisecondAndPastTheCounter() {
        long millis = System.currentTimeMillis() + 60_000; // a millisecond no other test uses
        UUID previous = UuidV7.next(millis);
        for (int i = 0; i < 10_000; i++) { // more than the 12-bit counter holds in one millisecond
            UUID next = UuidV7.next(millis);
            assertThat(next.compareTo(previous)).as("%s after %s", next, previous).isPositive();
            // Also in PostgreSQL's uuid order (unsigned bytes), which is what the index sees.
            assertThat(Long.compareUnsigned(next.getMostSignificantBits(), previous.getMostSignificantBits()))
                    .isPositive();
            previous = next;
        }
        assertThat(UuidV7.millisOf(previous)).as("borrowed a few milliseconds at most").isBetween(millis, millis + 5);
    }
}
