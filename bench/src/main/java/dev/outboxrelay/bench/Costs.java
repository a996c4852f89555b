package dev.outboxrelay.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * CPU per event of every contender against the floors, all measured at the curve's 5,000 events/s point: the
 * contender's JVM and its database sessions (walsender included), next to the raw producer (K's run, flat out),
 * the two floors (fetch + producer, engine + producer) and what the writers' sessions spent per inserted row
 * while the backlogs were written.
 */
final class Costs {

    private Costs() {
    }

    /** The floor contender a relay mode is compared with. */
    static String floorOf(String slug) {
        return slug.startsWith("cdc") ? "floor-cdc" : "floor-poll";
    }

    /** The baseline a relay mode's total is compared with. */
    static String baselineOf(String slug) {
        return slug.startsWith("cdc") ? "debezium" : "batched";
    }

    static boolean isRelay(String slug) {
        return Bench.role(slug) == ScenarioRunner.Role.RELAY;
    }

    static OptionalDouble jvm(Map<String, Outcome> o, String slug) {
        Outcome.LatencyPoint p = o.get(slug) == null ? null : o.get(slug).costPoint();
        return p == null || Double.isNaN(p.jvmMicros()) ? OptionalDouble.empty() : OptionalDouble.of(p.jvmMicros());
    }

    static OptionalDouble total(Map<String, Outcome> o, String slug) {
        Outcome.LatencyPoint p = o.get(slug) == null ? null : o.get(slug).costPoint();
        return p == null || Double.isNaN(p.jvmMicros()) ? OptionalDouble.empty()
                : OptionalDouble.of(p.jvmMicros() + p.dbMicros());
    }

    /** What the writers' database sessions spent per inserted row, over every backlog written in the run. */
    static OptionalDouble insertMicros(Map<String, Outcome> o) {
        long nanos = o.values().stream().mapToLong(x -> x.drain().insertDbNanos()).sum();
        long rows = o.values().stream().mapToLong(x -> x.drain().insertRows()).sum();
        return nanos <= 0 || rows == 0 ? OptionalDouble.empty() : OptionalDouble.of(nanos / 1e3 / rows);
    }

    static void append(List<String> out, Bench.Result r) {
        Map<String, Outcome> o = r.outcomes();
        if (o.values().stream().allMatch(x -> x.costPoint() == null)) {
            return;
        }
        out.add("");
        out.add("## Cost per event against the floor");
        out.add("");
        out.add("CPU per event at " + Report.fmt(ScenarioRunner.COST_RATE) + " events/s (the curve's point of that"
                + " name, " + ScenarioRunner.LATENCY_TX_ROWS + "-row transactions, from the first write until the"
                + " contender had delivered and acknowledged the last event), every contender in its own JVM: its JVM,"
                + " and its PostgreSQL sessions (walsender included). Floors run with the relay's JVM options,"
                + " baselines with the JVM's defaults. Floors: the raw producer (the bench JVM's CPU per record during"
                + " K), `floor: fetch + producer` (NOTIFY-woken reads after the last seq, sends without waiting,"
                + " marks nothing), `floor: engine + producer` (Debezium set up as the relay sets it up, each event"
                + " sent and acknowledged at once), and the writers' sessions per inserted row. A relay mode's floor"
                + " is fetch + producer (poll) or engine + producer (cdc); its baseline the batched poller (poll) or"
                + " stock Debezium (cdc).");
        out.add("");
        out.add("| contender | JVM µs/event | db sessions µs/event | total µs/event | JVM / floor | total / baseline |");
        out.add("|---|---:|---:|---:|---:|---:|");
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, Outcome> e : o.entrySet()) {
            Outcome.LatencyPoint d = e.getValue().costPoint();
            if (d == null) {
                continue;
            }
            String slug = e.getKey();
            boolean relay = isRelay(slug);
            OptionalDouble floor = relay ? jvm(o, floorOf(slug)) : OptionalDouble.empty();
            OptionalDouble baseline = relay ? total(o, baselineOf(slug)) : OptionalDouble.empty();
            double total = d.jvmMicros() + d.dbMicros();
            out.add("| " + e.getValue().name() + " | " + us(d.jvmMicros()) + " | " + us(d.dbMicros()) + " | "
                    + us(total) + " | " + (floor.isPresent() ? times(d.jvmMicros() / floor.getAsDouble()) : "")
                    + " | " + (baseline.isPresent() ? times(total / baseline.getAsDouble()) : "") + " |");
            lines.add("cost " + slug + " jvm_us=" + us(d.jvmMicros()) + " db_us=" + us(d.dbMicros())
                    + (floor.isPresent() ? " floor_us=" + us(floor.getAsDouble()) : ""));
        }
        out.add("| raw producer (K) | " + us(r.producerMicros()) + " | | | | |");
        OptionalDouble insert = insertMicros(o);
        if (insert.isPresent()) {
            out.add("| the writers' sessions per inserted row (100-row transactions) | | "
                    + us(insert.getAsDouble()) + " | | | |");
        }
        lines.add("cost producer jvm_us=" + us(r.producerMicros()));
        insert.ifPresent(v -> lines.add("cost insert db_us=" + us(v)));
        out.add("");
        out.add("```");
        out.addAll(lines);
        out.add("```");
    }

    static String us(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, "%.1f", v);
    }

    private static String times(double v) {
        return Double.isNaN(v) || Double.isInfinite(v) ? "n/a" : String.format(Locale.ROOT, "%.2f×", v);
    }
}
