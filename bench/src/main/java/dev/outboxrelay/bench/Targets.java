package dev.outboxrelay.bench;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/** The targets, checked against a result; a miss is reported, never hidden. */
final class Targets {

    private static final double MB = 1024.0 * 1024.0;

    private Targets() {
    }

    static void append(List<String> out, Bench.Result r) {
        // The targets are the daemon's at its default delivery; the connector runs inside a Connect worker, whose
        // costs are Connect's, and exactly-once (issue 27) is measured for its cost, next to them.
        Map<String, Outcome> o = new java.util.LinkedHashMap<>(r.outcomes());
        o.remove("connect");
        o.remove("poll-eos");
        o.remove("cdc-eos");
        out.add("");
        out.add("## Targets");
        out.add("");
        out.add("| target | measured | met |");
        out.add("|---|---:|---|");
        // Issue 26 replaced the 2x / 8x drain ratios of the first issues with these.
        row(out, "drain: poll ≥ 1.5× batched poller", Report.drain(o, "poll-mark"), Report.drain(o, "batched"), 1.5);
        row(out, "drain: cdc ≥ 3.5× stock Debezium", Report.drain(o, "cdc"), Report.drain(o, "debezium"), 3.5);
        latency(out, o);
        cost(out, o);
        OptionalDouble cdc = Report.drain(o, "cdc");
        OptionalDouble poll = Report.drain(o, "poll-mark");
        if (cdc.isPresent() && poll.isPresent()) {
            out.add("| cdc > poll | " + Report.fmt(cdc.getAsDouble()) + " vs " + Report.fmt(poll.getAsDouble())
                    + " events/s | " + yes(cdc.getAsDouble() > poll.getAsDouble()) + " |");
        }
        for (Outcome x : o.values()) {
            if (x.saturation() != null) {
                double ratio = x.saturation().deliveredRate() / r.insertRate();
                out.add("| " + x.name() + ": steady ≥ 0.95 × I with bounded backlog (≤ 1 s of I) | "
                        + String.format(Locale.ROOT, "%.2f × I, backlog at end %s", ratio,
                        Report.fmt(x.saturation().backlogAtEnd())) + " | "
                        + yes(ratio >= 0.95 && bounded(x.saturation(), r)) + " |");
            }
        }
        for (Outcome x : o.values()) {
            if (x.saturation() != null) {
                // Issues 3 and 4: "keeps up with a single writer committing 100-row transactions as fast as it
                // can": delivers what the writer writes while both share the machine, and is not left behind.
                Outcome.Saturation s = x.saturation();
                double share = s.writeRate() == 0 ? 0 : s.deliveredRate() / s.writeRate();
                out.add("| " + x.name() + ": keeps up with the writer flat out (delivered ≥ 0.95 × written, backlog"
                        + " ≤ 1 s of I) | " + String.format(Locale.ROOT, "%.2f × written (%s of %s rows/s), backlog"
                        + " at end %s", share, Report.fmt(s.deliveredRate()), Report.fmt(s.writeRate()),
                        Report.fmt(s.backlogAtEnd())) + " | " + yes(share >= 0.95 && bounded(s, r)) + " |");
            }
        }
        for (Outcome x : o.values()) {
            if (x.steady() != null) {
                double limit = x.name().startsWith("cdc") ? 100 : 50;
                out.add("| " + x.name() + ": p99 at 50 % load ≤ " + (int) limit + " ms | "
                        + String.format(Locale.ROOT, "%.1f ms", x.steady().p99Ms()) + " | "
                        + yes(x.steady().p99Ms() <= limit && x.steady().caughtUp()) + " |");
            }
        }
        for (Map.Entry<String, Outcome> e : o.entrySet()) {
            Outcome x = e.getValue();
            if (Costs.isRelay(e.getKey()) && x.peakRss().isPresent()) {
                double mb = x.peakRss().getAsLong() / MB;
                out.add("| " + x.name() + ": relay RSS ≤ 300 MB | " + Report.fmt(mb) + " MB | " + yes(mb <= 300) + " |");
            }
        }
        boolean lost = !r.nothingLost();
        out.add("| every run: lost = 0 | " + (lost ? "events lost" : "0 lost") + " | " + yes(!lost) + " |");
    }

    /** Issue 26's latency targets per relay mode, with the floor's figure for the same point beside each. */
    private static void latency(List<String> out, Map<String, Outcome> o) {
        for (Map.Entry<String, Outcome> e : o.entrySet()) {
            if (!Costs.isRelay(e.getKey())) {
                continue;
            }
            Outcome floor = o.get(Costs.floorOf(e.getKey()));
            for (Outcome.LatencyPoint p : e.getValue().curve()) {
                Outcome.LatencyPoint f = floor == null ? null : floor.curve().stream()
                        .filter(q -> q.label().equals(p.label())).findFirst().orElse(null);
                String floorNote = f == null ? "" : " (floor " + Report.ms(f.p50Ms()) + " / " + Report.ms(f.p99Ms())
                        + " / " + Report.ms(f.maxMs()) + ")";
                if (p.label().equals(ScenarioRunner.HALF_DRAIN)) {
                    out.add("| " + e.getValue().name() + ": p99 at 50 % of its own drain rate ≤ 100 ms | "
                            + Report.ms(p.p99Ms()) + " ms" + (f == null ? "" : " (floor " + Report.ms(f.p99Ms()) + ")")
                            + " | " + yes(p.p99Ms() <= 100) + " |");
                } else if (!p.label().contains("quiet")) {
                    out.add("| " + e.getValue().name() + ", " + p.label() + ": p50 ≤ 10, p99 ≤ 50, max ≤ 200 ms | "
                            + Report.ms(p.p50Ms()) + " / " + Report.ms(p.p99Ms()) + " / " + Report.ms(p.maxMs())
                            + " ms" + floorNote + " | " + yes(p.p50Ms() <= 10 && p.p99Ms() <= 50 && p.maxMs() <= 200)
                            + " |");
                }
            }
        }
    }

    /** Issue 26's cost targets: JVM ≤ 1.5× the floor, total ≤ 0.6× batched (poll) or 0.35× stock Debezium (cdc). */
    private static void cost(List<String> out, Map<String, Outcome> o) {
        for (Map.Entry<String, Outcome> e : o.entrySet()) {
            String slug = e.getKey();
            if (!Costs.isRelay(slug)) {
                continue;
            }
            row(out, e.getValue().name() + ": JVM CPU per event ≤ 1.5× " + Costs.floorOf(slug),
                    Costs.jvm(o, Costs.floorOf(slug)).isPresent() ? Costs.jvm(o, slug) : OptionalDouble.empty(),
                    Costs.jvm(o, Costs.floorOf(slug)), 1 / 1.5, true);
            double factor = slug.startsWith("cdc") ? 0.35 : 0.6;
            OptionalDouble total = Costs.total(o, slug);
            OptionalDouble baseline = Costs.total(o, Costs.baselineOf(slug));
            OptionalDouble floor = Costs.total(o, Costs.floorOf(slug));
            if (total.isPresent() && baseline.isPresent()) {
                double ratio = total.getAsDouble() / baseline.getAsDouble();
                // The floor's own ratio shows whether the target is reachable at this load at all.
                out.add("| " + e.getValue().name() + ": total CPU per event ≤ " + factor + "× " + Costs.baselineOf(slug)
                        + " | " + String.format(Locale.ROOT, "%.2f× (%s vs %s µs)", ratio,
                        Costs.us(total.getAsDouble()), Costs.us(baseline.getAsDouble()))
                        + (floor.isPresent() ? String.format(Locale.ROOT, "; %s alone %.2f×", Costs.floorOf(slug),
                        floor.getAsDouble() / baseline.getAsDouble()) : "") + " | " + yes(ratio <= factor) + " |");
            }
        }
    }

    /** Bounded backlog: what is left when the writers stop is at most one second of I. */
    private static boolean bounded(Outcome.Saturation s, Bench.Result r) {
        return s.backlogAtEnd() <= r.insertRate();
    }

    private static void row(List<String> out, String target, OptionalDouble a, OptionalDouble b, double factor) {
        row(out, target, a, b, factor, false);
    }

    /** {@code a / b ≥ factor}, or with {@code atMost} {@code a / b ≤ 1 / factor} (a cost below a bound). */
    private static void row(List<String> out, String target, OptionalDouble a, OptionalDouble b, double factor,
                            boolean atMost) {
        if (a.isEmpty() || b.isEmpty()) {
            return;
        }
        double ratio = a.getAsDouble() / b.getAsDouble();
        boolean met = atMost ? ratio <= 1 / factor + 1e-9 : ratio >= factor;
        out.add("| " + target + " | " + String.format(Locale.ROOT, "%.2f×", ratio)
                + (atMost ? String.format(Locale.ROOT, " (%s vs %s µs)", Costs.us(a.getAsDouble()),
                Costs.us(b.getAsDouble())) : "") + " | " + yes(met) + " |");
    }

    private static String yes(boolean met) {
        return met ? "yes" : "**no**";
    }
}
