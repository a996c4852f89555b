package dev.outboxrelay.verify;

import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * What {@link DeliveryAudit} found.
 *
 * @param since           rows created at or after this instant were checked
 * @param rows            rows checked
 * @param sent            rows marked sent
 * @param topics          topic to records read from it (only the range written since {@code since})
 * @param lost            sent rows whose id no record carries, in seq order
 * @param duplicates      ids seen more than once, to how often they were seen
 * @param orderViolations per-key order violations, one line each
 * @param unsent          rows neither sent nor dead-lettered (still waiting)
 * @param oldestUnsent    created_at of the oldest unsent row, null when none
 * @param deadLetters     dead-lettered rows
 * @param unroutable      rows whose topic cannot be computed from the template (they are dead letters to be)
 */
public record AuditReport(Instant since, long rows, long sent, Map<String, Long> topics, List<Row> lost,
                          Map<String, Integer> duplicates, List<String> orderViolations, long unsent,
                          Instant oldestUnsent, List<Row> deadLetters, long unroutable, boolean exactlyOnce) {

    /**
     * One row named in the report.
     *
     * @param id            event id
     * @param aggregateType aggregate type
     * @param aggregateId   aggregate id (the record key)
     * @param seq           position in the outbox
     * @param createdAt     when it was written
     * @param lastError     the relay's last error for it, if any (never payload)
     */
    public record Row(String id, String aggregateType, String aggregateId, long seq, Instant createdAt,
                      String lastError) {
    }

    public AuditReport {
        topics = Map.copyOf(topics);
        lost = List.copyOf(lost);
        duplicates = Map.copyOf(duplicates);
        orderViolations = List.copyOf(orderViolations);
        deadLetters = List.copyOf(deadLetters);
    }

    /**
     * What the relay guarantees held: nothing lost and per-key order; read as an exactly-once consumer
     * ({@link #exactlyOnce}), also no duplicates.
     */
    public boolean ok() {
        return lost.isEmpty() && orderViolations.isEmpty() && (!exactlyOnce || duplicates.isEmpty());
    }

    /** Records beyond the first of each duplicated id. */
    public long duplicateRecords() {
        return duplicates.values().stream().mapToLong(n -> n - 1).sum();
    }
}
