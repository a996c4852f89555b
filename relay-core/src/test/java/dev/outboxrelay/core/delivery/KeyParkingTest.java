package dev.outboxrelay.core.delivery;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.core.delivery.KeyParking.Hold;
import dev.outboxrelay.core.delivery.KeyParking.Reason;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class KeyParkingTest {

    private final AtomicLong now = new AtomicLong(0);
    private final KeyParking parking = KeyParking.create(now::get);

    @Test
    void onlyAParkedKeyHoldsItsEventsBack() {
        assertThat(parking.parkIfHeld("a")).isFalse();
        parking.park("a", Reason.TOPIC, "topic t");
        assertThat(parking.parkIfHeld("a")).isTrue();
        assertThat(parking.parkIfHeld("b")).as("other keys flow").isFalse();
        assertThat(parking.parkIfHeld(null)).isFalse();
        assertThat(parking.countByReason()).isEqualTo(Map.of(Reason.TOPIC, 1));
    }

    @Test
    void aKeyIsDueAfterItsReasonsInterval() {
        parking.park("topic", Reason.TOPIC, "t");
        parking.park("dead", Reason.DEAD_LETTER, "id");
        parking.park("risk", Reason.AT_RISK, "big record");
        assertThat(parking.due()).as("nothing due at once").isEmpty();
        parking.dueNow("risk"); // the risky record was acknowledged
        assertThat(parking.due()).extracting(Hold::key).containsExactly("risk");
        now.addAndGet(TimeUnit.SECONDS.toNanos(2));
        assertThat(parking.due()).extracting(Hold::key).containsExactlyInAnyOrder("risk", "dead");
        now.addAndGet(TimeUnit.SECONDS.toNanos(TopicLimits.RETRY_UNUSABLE_SECONDS));
        assertThat(parking.due()).extracting(Hold::key).containsExactlyInAnyOrder("risk", "dead", "topic");
    }

    @Test
    void rowRetriesBackOffLongerEachTimeInARowUpToTenSeconds() {
        for (int retry = 1; retry <= 10; retry++) {
            long parkedAt = now.get();
            parking.park("k", Reason.ROW_RETRY, "RecordTooLarge");
            long ceiling = TimeUnit.MILLISECONDS.toNanos(Math.min(10_000, 200L << (retry - 1)));
            now.set(parkedAt + ceiling / 2 - 1);
            assertThat(parking.due()).as("retry %d not due before half its ceiling", retry).isEmpty();
            now.set(parkedAt + ceiling);
            assertThat(parking.due()).as("retry %d due at its ceiling", retry).singleElement()
                    .extracting(Hold::retries).isEqualTo(retry);
        }
        parking.park("k", Reason.TOPIC, "t");
        now.addAndGet(TimeUnit.SECONDS.toNanos(TopicLimits.RETRY_UNUSABLE_SECONDS));
        assertThat(parking.due().get(0).retries()).as("another reason starts over").isZero();
    }

    @Test
    void aRetryHoldReadFromTheTableWaitsItsRestAndItsBackoffGoesOnFromItsAttempts() {
        parking.restoreRetry("k", "held", java.time.Duration.ofSeconds(3), 6);
        assertThat(parking.retryDueIn("k")).isEqualTo(java.time.Duration.ofSeconds(3));
        now.addAndGet(TimeUnit.SECONDS.toNanos(3) - 1);
        assertThat(parking.due()).as("not before the hold recorded in the table ends").isEmpty();
        now.addAndGet(1);
        assertThat(parking.due()).singleElement().extracting(Hold::retries).isEqualTo(6);
        parking.park("k", Reason.ROW_RETRY, "failed again");
        assertThat(parking.retryDueIn("k")).as("the 7th retry backs off as long as a 7th does: the 10 s cap, half of it jitter")
                .isBetween(java.time.Duration.ofSeconds(5), java.time.Duration.ofSeconds(10));

        parking.park("t", Reason.TOPIC, "topic");
        parking.restoreRetry("t", "held", java.time.Duration.ofMinutes(1), 1);
        assertThat(parking.reasonOf("t")).as("a key parked in this process keeps its hold").isEqualTo(Reason.TOPIC);
        assertThat(parking.retryDueIn("t")).isNull();
    }

    @Test
    void aRowsRetryBacksOffByItsAttemptsAlsoAfterItsKeyWasReleased() {
        parking.parkForRetry("k", "failed", 1);
        Hold first = parking.due().isEmpty() ? null : parking.due().get(0);
        assertThat(first).isNull();
        now.addAndGet(TimeUnit.SECONDS.toNanos(1));
        assertThat(parking.releaseIfUnchanged("k", parking.due().get(0).parkedEvents())).isTrue();
        parking.parkForRetry("k", "failed again", 7);
        assertThat(parking.retryDueIn("k")).as("the 7th attempt's backoff, not a first one's")
                .isBetween(java.time.Duration.ofSeconds(5), java.time.Duration.ofSeconds(10));
    }

    @Test
    void theDrainerReleasesOnlyWhenNothingWasParkedSinceItLooked() {
        parking.park("k", Reason.AT_RISK, "big");
        parking.dueNow("k");
        Hold looked = parking.due().get(0);
        assertThat(parking.parkIfHeld("k")).isTrue(); // the stream parks one more event meanwhile
        assertThat(parking.releaseIfUnchanged("k", looked.parkedEvents())).isFalse();
        assertThat(parking.isParked("k")).isTrue();

        Hold again = parking.due().get(0);
        assertThat(parking.releaseIfUnchanged("k", again.parkedEvents())).isTrue();
        assertThat(parking.isParked("k")).isFalse();
        assertThat(parking.parkIfHeld("k")).as("the stream sends the key's events again").isFalse();
    }

    @Test
    void theNumberOfParkedKeysIsReportedWhenItChanges() {
        List<Integer> reported = new ArrayList<>();
        KeyParking counted = KeyParking.create(reported::add);
        counted.park("a", Reason.TOPIC, "t");
        counted.park("a", Reason.ROW_RETRY, "again"); // the same key: no change
        assertThat(counted.parkIfHeld("a")).isTrue();
        counted.park("b", Reason.DEAD_LETTER, "id");
        assertThat(counted.releaseIfUnchanged("a", 3)).as("two parks and one parked event").isTrue();
        assertThat(reported).containsExactly(1, 2, 1);
    }

    @Test
    void recheckingCountsNoEventAndKeepsTheKeyParked() {
        parking.park("k", Reason.DEAD_LETTER, "id");
        now.addAndGet(TimeUnit.SECONDS.toNanos(2));
        Hold looked = parking.due().get(0);
        parking.recheckLater("k", Reason.DEAD_LETTER, "id");
        assertThat(parking.due()).isEmpty();
        assertThat(parking.releaseIfUnchanged("k", looked.parkedEvents())).isTrue();
        assertThat(parking.size()).isZero();
    }

}
