package dev.outboxrelay.bench;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalDouble;

/** Renders a {@link Bench.Result} as markdown: absolute figures, the ratios, the targets, the machine. */
final class Report {

    private static final double MB = 1024.0 * 1024.0;

    private Report() {
    }

    static String markdown(Bench.Result r) {
        BenchConfig c = r.options().config();
        Map<String, Outcome> o = r.outcomes();
        List<String> out = new ArrayList<>();
        out.add("# outbox-relay benchmark (" + c.label() + ", "
                + DateTimeFormatter.ISO_INSTANT.format(r.started().atOffset(ZoneOffset.UTC).withNano(0)) + ")");
        out.add("");
        out.add("Command: `" + r.options().command() + "`  ");
        out.add("Wall time: " + r.wall().toSeconds() + " s. Load average (1/5/15 min) at start " + r.loadStart()
                + ", at end " + r.loadEnd() + ".");
        out.add("");
        out.add("## Ceilings");
        out.add("");
        out.add("| ceiling | value |");
        out.add("|---|---:|");
        out.add("| K: raw idempotent producer (the relay's producer settings), " + fmt(c.kafkaRecords())
                + " records, best of start and end | " + fmt(r.kafkaRate()) + " events/s |");
        out.add("| I: the writer's max insert rate (" + c.writers() + " thread, 100-row transactions, "
                + fmt(c.insertRows()) + " rows), best of start and end | " + fmt(r.insertRate()) + " rows/s |");
        out.add("| the database's insert ceiling: " + c.fillThreads() + " writer threads, 100-row transactions, "
                + fmt(c.insertRows()) + " rows, best of start and end | " + fmt(r.databaseInsertRate())
                + " rows/s |");
        out.add("");
        out.add("## Drain of a pre-filled backlog");
        out.add("");
        out.add("Each contender relays " + fmt(c.warmup()) + " warm-up events (the time-capped naive poller "
                + ScenarioRunner.CAPPED_WARMUP + "), is paused (in-process baselines at a"
                + " gate, the relay process with SIGSTOP), " + fmt(c.backlog()) + " events are written, and it is"
                + " resumed; the drain runs from resume to the consumer receiving the last event. The naive poller"
                + " is capped at " + c.naiveCap().toSeconds() + " s.");
        out.add("");
        out.add("| contender | events | seconds | events/s | lost | duplicates | order violations | peak RSS | load (1 min) |");
        out.add("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
        for (Outcome x : o.values()) {
            Outcome.Verdict v = x.verdict();
            out.add("| " + x.name() + " | " + fmt(x.drain().events()) + (x.drain().capped() ? " (capped)" : "")
                    + " | " + String.format(Locale.ROOT, "%.2f", x.drain().seconds()) + " | " + fmt(x.drain().rate())
                    + " | " + (v.nothingLost() ? "0" : "**" + v.lost() + "**") + " | " + fmt(v.duplicates())
                    + " | " + fmt(v.orderViolations() + v.splitKeys()) + " | "
                    + (x.peakRss().isPresent() ? fmt(x.peakRss().getAsLong() / MB) + " MB" : "in bench JVM")
                    + " | " + x.loadAvg() + " |");
        }
        latencyCurve(out, r);
        Costs.append(out, r);
        steadyTables(out, r);
        out.add("");
        out.add("## Ratios");
        out.add("");
        out.add("```");
        out.add("ratio poll/batched = " + ratio(drain(o, "poll-mark"), drain(o, "batched")));
        out.add("ratio poll/naive = " + ratio(drain(o, "poll-mark"), drain(o, "naive")));
        out.add("ratio cdc/debezium = " + ratio(drain(o, "cdc"), drain(o, "debezium")));
        out.add("ratio cdc/poll = " + ratio(drain(o, "cdc"), drain(o, "poll-mark")));
        out.add("ratio poll/K = " + ratio(drain(o, "poll-mark"), OptionalDouble.of(r.kafkaRate())));
        out.add("ratio cdc/K = " + ratio(drain(o, "cdc"), OptionalDouble.of(r.kafkaRate())));
        out.add("ratio steady/I = " + ratio(steady(o, "poll-mark"), OptionalDouble.of(r.insertRate())));
        out.add("ratio steady(poll-delete)/I = " + ratio(steady(o, "poll-delete"), OptionalDouble.of(r.insertRate())));
        out.add("ratio steady(cdc)/I = " + ratio(steady(o, "cdc"), OptionalDouble.of(r.insertRate())));
        out.add("ratio poll-eos/poll = " + ratio(drain(o, "poll-eos"), drain(o, "poll-mark")));
        out.add("ratio cdc-eos/cdc = " + ratio(drain(o, "cdc-eos"), drain(o, "cdc")));
        out.add("```");
        out.add("");
        out.add("poll = poll (mark), the default. steady = events/s delivered while the writer ran flat out (one thread, as for I).");
        Targets.append(out, r);
        out.add("");
        out.add("## Machine");
        out.add("");
        r.notes().forEach(n -> out.add("- " + n));
        out.add("- load average (1/5/15 min): start " + r.loadStart() + ", end " + r.loadEnd());
        out.add("- relay and broker logs of this run: " + r.logs());
        out.add("");
        return String.join("\n", out);
    }

    /**
     * The latency curve of every relay mode: a table, and one machine-readable line per point
     * ({@code latency <contender> <load> p50=<ms> p99=<ms> max=<ms>}).
     */
    private static void latencyCurve(List<String> out, Bench.Result r) {
        List<Map.Entry<String, Outcome>> relays = r.outcomes().entrySet().stream()
                .filter(e -> !e.getValue().curve().isEmpty()).toList();
        if (relays.isEmpty()) {
            return;
        }
        out.add("");
        out.add("## Latency at fixed loads");
        out.add("");
        out.add("One writer commits " + ScenarioRunner.LATENCY_TX_ROWS + "-row transactions at each load for "
                + r.options().config().latencyPhase().toSeconds() + " s (idle: one transaction a second), the"
                + " contender caught up before each; " + ScenarioRunner.HALF_DRAIN + " offers half the rate this"
                + " contender drained its backlog at, in " + OutboxLoad.TX_ROWS + "-row transactions; the last point"
                + " is 1,000/s again after " + r.options().config().quietSpell().toSeconds() + " s without writes."
                + " Commit returned → consumer received, one clock. The floors (the parts no relay can avoid, see the"
                + " cost table) run the same curve; the baselines only the " + ScenarioRunner.COST_LABEL + " point,"
                + " where every contender's cost is measured.");
        out.add("");
        out.add("| mode | load | offered events/s | written events/s | events | p50 ms | p99 ms | max ms |");
        out.add("|---|---|---:|---:|---:|---:|---:|---:|");
        List<String> lines = new ArrayList<>();
        for (Map.Entry<String, Outcome> e : relays) {
            for (Outcome.LatencyPoint p : e.getValue().curve()) {
                out.add("| " + e.getValue().name() + " | " + p.label() + " | " + fmt(p.rowsPerSecond()) + " | "
                        + fmt(p.writtenPerSecond()) + " | " + fmt(p.events()) + " | " + ms(p.p50Ms()) + " | "
                        + ms(p.p99Ms()) + " | " + ms(p.maxMs()) + " |");
                lines.add("latency " + e.getKey() + " " + p.label() + " p50=" + Math.round(p.p50Ms()) + " p99="
                        + Math.round(p.p99Ms()) + " max=" + Math.round(p.maxMs()));
            }
        }
        out.add("");
        for (Map.Entry<String, Outcome> e : relays) {
            if (!Double.isNaN(e.getValue().quietCpu())) {
                out.add("- " + e.getValue().name() + ": JVM CPU while quiet "
                        + String.format(java.util.Locale.ROOT, "%.2f", e.getValue().quietCpu()) + " % of a core");
                lines.add("quiet-cpu " + e.getKey() + " "
                        + String.format(java.util.Locale.ROOT, "%.2f", e.getValue().quietCpu()));
            }
        }
        out.add("");
        out.add("```");
        out.addAll(lines);
        out.add("```");
    }

    private static void steadyTables(List<String> out, Bench.Result r) {
        BenchConfig c = r.options().config();
        List<Outcome> relays = r.outcomes().values().stream().filter(x -> x.steady() != null).toList();
        if (relays.isEmpty()) {
            return;
        }
        out.add("");
        boolean fixed = c.steadyRate() > 0;
        out.add(fixed ? "## Relay steady state at a fixed rate (--steady-rate)" : "## Relay steady state at 50 % of I");
        out.add("");
        out.add("Writers offer " + fmt(fixed ? c.steadyRate() : r.steadyBaseRate() / 2) + " rows/s for "
                + c.steady().toSeconds() + " s. Latency is"
                + " from the writer's commit returning to the consumer receiving the event (same JVM clock).");
        out.add("");
        out.add("| mode | offered rows/s | events | p50 ms | p99 ms | p99.9 ms | max ms | max backlog | caught up |");
        out.add("|---|---:|---:|---:|---:|---:|---:|---:|---|");
        for (Outcome x : relays) {
            Outcome.Steady s = x.steady();
            out.add("| " + x.name() + " | " + fmt(s.offeredRate()) + " | " + fmt(s.events()) + " | " + ms(s.p50Ms())
                    + " | " + ms(s.p99Ms()) + " | " + ms(s.p999Ms()) + " | " + ms(s.maxMs()) + " | "
                    + fmt(s.maxBacklog()) + " | " + (s.caughtUp() ? "yes" : "**no**") + " |");
        }
        out.add("");
        out.add("Where the CPU went, from the first write of the steady phase until the relay caught up (% of one core;"
                + " the machine has " + Runtime.getRuntime().availableProcessors() + " cores; \"other\" is the rest"
                + " of the machine: PostgreSQL's background processes, the OS). The relay's CPU per event (its JVM"
                + " and its database sessions) is the figure that does not depend on how busy the machine was.");
        out.add("");
        out.add("| mode | relay JVM | relay's db sessions | writers' db sessions | bench JVM and broker (writer clients,"
                + " consumer, broker process) | other | machine busy | relay CPU µs/event |");
        out.add("|---|---:|---:|---:|---:|---:|---:|---:|");
        for (Outcome x : relays) {
            CpuMeter.Split cpu = x.steady().cpu();
            double listed = cpu.relayJvm() + cpu.relayDb() + cpu.writersDb() + cpu.benchJvm();
            out.add("| " + x.name() + " | " + pct(cpu.relayJvm(), cpu) + " | " + pct(cpu.relayDb(), cpu) + " | "
                    + pct(cpu.writersDb(), cpu) + " | " + pct(cpu.benchJvm(), cpu) + " | "
                    + pct(Math.max(0, cpu.machine() - listed), cpu) + " | " + pct(cpu.machine(), cpu) + " | "
                    + String.format(Locale.ROOT, "%.1f", cpu.relayMicrosPerEvent(x.steady().events())) + " |");
        }
        out.add("");
        out.add("## Relay under full write load");
        out.add("");
        out.add("The writer (" + c.writers() + " thread, as for I) runs flat out for " + c.saturation().toSeconds()
                + " s while the relay runs; it shares the CPU with the relay, so it writes less than I. The stress"
                + " row runs " + c.fillThreads() + " writer threads flat out for " + c.stress().toSeconds() + " s,"
                + " more than the issues ask, to show where the machine runs out.");
        out.add("");
        out.add("| mode | writers | written rows/s | delivered events/s | delivered / I | backlog at end | catch-up s |");
        out.add("|---|---:|---:|---:|---:|---:|---:|");
        for (Outcome x : relays) {
            saturationRow(out, r, x.name(), c.writers(), x.saturation());
        }
        for (Outcome x : relays) {
            saturationRow(out, r, x.name() + ", stress", c.fillThreads(), x.stress());
        }
    }

    private static void saturationRow(List<String> out, Bench.Result r, String name, int writers,
                                      Outcome.Saturation s) {
        out.add("| " + name + " | " + writers + " | " + fmt(s.writeRate()) + " | " + fmt(s.deliveredRate()) + " | "
                + String.format(Locale.ROOT, "%.2f", s.deliveredRate() / r.insertRate()) + " | "
                + fmt(s.backlogAtEnd()) + " | " + String.format(Locale.ROOT, "%.1f", s.catchUpSeconds()) + " |");
    }

    static OptionalDouble drain(Map<String, Outcome> o, String slug) {
        Outcome x = o.get(slug);
        return x == null ? OptionalDouble.empty() : OptionalDouble.of(x.drain().rate());
    }

    static OptionalDouble steady(Map<String, Outcome> o, String slug) {
        Outcome x = o.get(slug);
        return x == null || x.saturation() == null ? OptionalDouble.empty()
                : OptionalDouble.of(x.saturation().deliveredRate());
    }

    static String ratio(OptionalDouble a, OptionalDouble b) {
        if (a.isEmpty() || b.isEmpty() || b.getAsDouble() == 0) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.2f", a.getAsDouble() / b.getAsDouble());
    }

    static String fmt(double v) {
        return String.format(Locale.ROOT, "%,d", Math.round(v));
    }

    private static String pct(double cpuSeconds, CpuMeter.Split cpu) {
        return Double.isNaN(cpuSeconds) ? "n/a"
                : String.format(Locale.ROOT, "%.0f %%", 100 * cpuSeconds / cpu.wallSeconds());
    }

    static String ms(double v) {
        return Double.isNaN(v) ? "n/a" : String.format(Locale.ROOT, v < 10 ? "%.1f" : "%.0f", v);
    }
}
