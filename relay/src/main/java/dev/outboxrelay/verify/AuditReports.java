package dev.outboxrelay.verify;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Renders an {@link AuditReport} for people (bounded lists) or for tools (JSON, everything). */
public final class AuditReports {

    /** How many ids the text form lists per section; JSON lists all. */
    static final int LISTED = 50;

    private AuditReports() {
    }

    /** Lines for a terminal. */
    public static List<String> text(AuditReport r, String table) {
        List<String> lines = new ArrayList<>();
        lines.add("outbox " + table + ": " + r.rows() + " rows created since " + r.since() + " (" + r.sent()
                + " sent, " + r.unsent() + " unsent, " + r.deadLetters().size() + " dead letters)");
        r.topics().forEach((t, n) -> lines.add("topic " + t + ": " + n + " records read"));
        lines.add("lost: " + r.lost().size() + (r.lost().isEmpty() ? "" : " (sent, but not on the topic)"));
        r.lost().stream().limit(LISTED).forEach(row -> lines.add("  lost " + describe(row)));
        more(lines, r.lost().size());
        lines.add("duplicates: " + r.duplicateRecords() + " records of " + r.duplicates().size() + " event ids");
        r.duplicates().entrySet().stream().limit(LISTED)
                .forEach(e -> lines.add("  duplicate " + e.getKey() + " seen " + e.getValue() + " times"));
        more(lines, r.duplicates().size());
        lines.add("per-key order: " + (r.orderViolations().isEmpty() ? "ok"
                : r.orderViolations().size() + " violations"));
        r.orderViolations().stream().limit(LISTED).forEach(v -> lines.add("  " + v));
        more(lines, r.orderViolations().size());
        lines.add("unsent: " + r.unsent() + (r.oldestUnsent() == null ? "" : " (oldest created " + r.oldestUnsent()
                + ")"));
        lines.add("dead letters: " + r.deadLetters().size());
        r.deadLetters().stream().limit(LISTED).forEach(row -> lines.add("  dead letter " + describe(row)
                + (row.lastError() == null ? "" : ": " + row.lastError())));
        more(lines, r.deadLetters().size());
        if (r.unroutable() > 0) {
            lines.add("unroutable: " + r.unroutable() + " rows whose topic the template cannot name");
        }
        lines.add("verdict: " + (r.ok() ? "OK (nothing lost, per-key order held" + (r.exactlyOnce()
                ? ", each event exactly once for read_committed consumers)" : ")")
                : "FAILED" + (r.exactlyOnce() && !r.duplicates().isEmpty() ? " (duplicates read_committed: exactly-once"
                + " delivery did not hold)" : "")));
        return lines;
    }

    /** The whole report as JSON. */
    public static String json(AuditReport r) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("ok", r.ok());
        m.put("isolation", r.exactlyOnce() ? "read_committed" : "read_uncommitted");
        m.put("since", r.since().toString());
        m.put("rows", r.rows());
        m.put("sent", r.sent());
        m.put("topics", r.topics());
        m.put("lost", r.lost().stream().map(AuditReports::row).toList());
        m.put("duplicateRecords", r.duplicateRecords());
        m.put("duplicates", r.duplicates());
        m.put("orderViolations", r.orderViolations());
        m.put("unsent", r.unsent());
        m.put("oldestUnsent", r.oldestUnsent() == null ? null : r.oldestUnsent().toString());
        m.put("deadLetters", r.deadLetters().stream().map(AuditReports::row).toList());
        m.put("unroutable", r.unroutable());
        try {
            return new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT).writeValueAsString(m);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot render the report as JSON", e);
        }
    }

    private static Map<String, Object> row(AuditReport.Row row) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", row.id());
        m.put("aggregateType", row.aggregateType());
        m.put("aggregateId", row.aggregateId());
        m.put("seq", row.seq());
        m.put("createdAt", row.createdAt().toString());
        m.put("lastError", row.lastError());
        return m;
    }

    private static String describe(AuditReport.Row row) {
        return row.id() + " (" + row.aggregateType() + "/" + row.aggregateId() + ", seq " + row.seq()
                + ", created " + row.createdAt() + ")";
    }

    private static void more(List<String> lines, int size) {
        if (size > LISTED) {
            lines.add("  ... and " + (size - LISTED) + " more (--json lists all)");
        }
    }
}
