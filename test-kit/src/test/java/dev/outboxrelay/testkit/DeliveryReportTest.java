package dev.outboxrelay.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

/** The report's rules, on hand-made records (no broker needed). */
class DeliveryReportTest {

    private final List<ReadRecord> records = new ArrayList<>();

    private void wire(int partition, String key, String id) {
        Map<String, String> headers = id == null ? Map.of() : Map.of("id", id);
        records.add(new ReadRecord("t", partition, records.size(), key, "v", headers, List.of(), 0L));
    }

    @Test
    void perfectDeliveryIsExactlyOnce() {
        wire(0, "a", "1");
        wire(1, "b", "2");
        wire(0, "a", "3");
        DeliveryReport report = DeliveryReport.of(records, List.of("1", "2", "3"));
        assertThat(report.exactlyOnce()).isTrue();
        assertThat(report.atLeastOnceInOrder()).isTrue();
    }

    @Test
    void redeliveryOfAnEarlierIdIsADuplicateNotAnOrderViolation() {
        wire(0, "a", "1");
        wire(0, "a", "2");
        wire(0, "a", "1"); // a relay restart replays from "1"
        wire(0, "a", "2");
        wire(0, "a", "3");
        DeliveryReport report = DeliveryReport.of(records, List.of("1", "2", "3"));
        assertThat(report.duplicateCount()).isEqualTo(2);
        assertThat(report.duplicatedIds()).containsExactly("1", "2");
        assertThat(report.orderViolations()).isEmpty();
        assertThat(report.atLeastOnceInOrder()).isTrue();
        assertThat(report.exactlyOnce()).isFalse();
    }

    @Test
    void firstOccurrenceOutOfOrderIsAViolationPerKeyOnly() {
        wire(0, "a", "2");
        wire(0, "a", "1");
        wire(1, "b", "4"); // other key: interleaving across keys is fine
        wire(1, "b", "5");
        wire(0, "a", "3");
        DeliveryReport report = DeliveryReport.of(records, List.of("1", "2", "3", "4", "5"));
        assertThat(report.orderViolations()).containsExactly(new DeliveryReport.OrderViolation("t", "a", "1", "2"));
        assertThat(report.nothingLost()).isTrue();
        assertThat(report.inPerKeyOrder()).isFalse();
        assertThat(report.toString()).contains("orderViolations=1", "t/a: 1 after 2");
    }

    @Test
    void wireOrderIsOffsetOrderNotListOrder() {
        records.add(new ReadRecord("t", 0, 7, "a", "v", Map.of("id", "2"), List.of(), 0L));
        records.add(new ReadRecord("t", 0, 3, "a", "v", Map.of("id", "1"), List.of(), 0L));
        assertThat(DeliveryReport.of(records, List.of("1", "2")).inPerKeyOrder()).isTrue();
    }

    @Test
    void lostUnexpectedUnkeyedAndSplitKeys() {
        wire(0, "a", "1");
        wire(1, "a", "3"); // same key on another partition
        wire(0, null, "x");
        wire(0, "c", null);
        DeliveryReport report = DeliveryReport.of(records, List.of("1", "2", "3"));
        assertThat(report.lostIds()).containsExactly("2");
        assertThat(report.unexpectedIds()).containsExactly("x");
        assertThat(report.recordsWithoutId()).isEqualTo(1);
        assertThat(report.keysOnSeveralPartitions()).containsExactly("t/a");
        assertThat(report.inPerKeyOrder()).isFalse();
        assertThat(report.totalRecords()).isEqualTo(4);
    }

    @Test
    void expectedIdsMustBeUnique() {
        assertThatThrownBy(() -> DeliveryReport.of(records, List.of("1", "1"))).isInstanceOf(IllegalArgumentException.class);
    }
}
