package dev.outboxrelay.poll;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class ScanFloorTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);

    @Test
    void theFirstFetchAndEveryFetchAfterTheIntervalReadFromTheStart() {
        ScanFloor floor = new ScanFloor(Duration.ofSeconds(1));
        assertThat(floor.from(0)).isEqualTo(ScanFloor.START);
        floor.fetched(100, Long.MAX_VALUE);
        assertThat(floor.from(SECOND / 2)).isEqualTo(100);
        assertThat(floor.from(SECOND)).isEqualTo(ScanFloor.START);
        assertThat(floor.from(SECOND + 1)).isEqualTo(100);
    }

    @Test
    void theFloorIsTheLowerOfTheLowestFetchedAndTheLowestInFlight() {
        ScanFloor floor = new ScanFloor(Duration.ofHours(1));
        floor.from(0);
        floor.fetched(2_000, 1_000);
        assertThat(floor.floor()).isEqualTo(1_000);
        floor.fetched(3_000, Long.MAX_VALUE);
        assertThat(floor.floor()).isEqualTo(3_000);
    }

    @Test
    void aFullScanThatFindsALateCommitLowersTheFloor() {
        ScanFloor floor = new ScanFloor(Duration.ofSeconds(1));
        floor.from(0);
        floor.fetched(5_000, Long.MAX_VALUE);
        assertThat(floor.from(SECOND)).isEqualTo(ScanFloor.START);
        floor.fetched(42, 5_000);
        assertThat(floor.from(SECOND + 1)).isEqualTo(42);
    }

    @Test
    void withNothingFetchedAndNothingInFlightTheFloorStays() {
        ScanFloor floor = new ScanFloor(Duration.ofHours(1));
        floor.from(0);
        floor.fetched(700, Long.MAX_VALUE);
        floor.fetched(Long.MAX_VALUE, Long.MAX_VALUE);
        assertThat(floor.from(1)).isEqualTo(700);
    }

    @Test
    void aZeroIntervalMeansEveryFetchIsAFullScan() {
        ScanFloor floor = new ScanFloor(Duration.ZERO);
        floor.from(0);
        floor.fetched(700, Long.MAX_VALUE);
        assertThat(floor.from(0)).isEqualTo(ScanFloor.START);
    }
}
