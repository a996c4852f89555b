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
        Map<String, Outcome> o = r.outcomes();
        out.add("");
        out.add("## Targets");
        out.add("");
        out.add("| target | measured | met |");
        out.add("|---|---:|---|");
        row(out, "poll ≥ 2× batched poller", Report.drain(o, "poll-mark"), Report.drain(o, "batched"), 2.0);
        row(out, "cdc ≥ 8× stock Debezium", Report.drain(o, "cdc"), Report.drain(o, "debezium"), 8.0);
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
        for (Outcome x : o.values()) {
            if (x.peakRss().isPresent()) {
                double mb = x.peakRss().getAsLong() / MB;
                out.add("| " + x.name() + ": relay RSS ≤ 300 MB | " + Report.fmt(mb) + " MB | " + yes(mb <= 300) + " |");
            }
        }
        boolean lost = !r.nothingLost();
        out.add("| every run: lost = 0 | " + (lost ? "events lost" : "0 lost") + " | " + yes(!lost) + " |");
    }

    /** Bounded backlog: what is left when the writers stop is at most one second of I. */
    private static boolean bounded(Outcome.Saturation s, Bench.Result r) {
        return s.backlogAtEnd() <= r.insertRate();
    }

    private static void row(List<String> out, String target, OptionalDouble a, OptionalDouble b, double factor) {
        if (a.isEmpty() || b.isEmpty()) {
            return;
        }
        double ratio = a.getAsDouble() / b.getAsDouble();
        out.add("| " + target + " | " + String.format(Locale.ROOT, "%.2f×", ratio) + " | " + yes(ratio >= factor) + " |");
    }

    private static String yes(boolean met) {
        return met ? "yes" : "**no**";
    }
}
