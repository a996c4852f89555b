package dev.outboxrelay.bench;

import java.util.OptionalLong;

/**
 * What one contender achieved.
 *
 * @param name       contender name
 * @param drain      the backlog drain
 * @param steady     the steady state at 50 % of I; {@code null} for baselines and floors
 * @param saturation the full-write-load phase (the writer flat out); {@code null} for baselines
 * @param stress     the stress phase (several writers flat out); {@code null} for baselines
 * @param curve      latency at fixed offered loads (idle, 1,000/s, 5,000/s, half the drain rate, 1,000/s after a
 *                   quiet spell); baselines only run 5,000/s, where every contender's cost is measured
 * @param peakRss    peak RSS of the contender's process; empty when it ran inside the bench JVM
 * @param verdict    what the consumer saw
 * @param loadAvg    1-minute load average when the scenario ended
 * @param quietCpu   the relay JVM's CPU (% of one core) during the quiet spell before the curve's last point;
 *                   NaN for baselines
 */
record Outcome(String name, Drain drain, Steady steady, Saturation saturation, Saturation stress,
               java.util.List<LatencyPoint> curve, OptionalLong peakRss,
               Verdict verdict, double loadAvg, double quietCpu) {

    /**
     * {@code events} drained in {@code seconds}; {@code capped} when the time cap ended it first; the writers'
     * database CPU while the backlog of {@code insertRows} rows was written (ns, 0 when unreadable).
     */
    record Drain(long events, double seconds, boolean capped, long insertDbNanos, long insertRows) {
        double rate() {
            return events / seconds;
        }
    }

    /** The curve's point the cost per event is measured at (every contender but the naive poller runs it). */
    LatencyPoint costPoint() {
        return curve.stream().filter(p -> p.cpu() != null).findFirst().orElse(null);
    }

    /**
     * Steady state: offered rate, end-to-end latency (commit returned → consumer received), backlog, and where
     * the CPU went from the first write until the relay caught up.
     */
    record Steady(double targetRate, double offeredRate, long events, double p50Ms, double p99Ms, double p999Ms,
                  double maxMs, long maxBacklog, boolean caughtUp, CpuMeter.Split cpu) {
    }

    /**
     * One point of the latency curve: {@code rowsPerSecond} offered for the phase (in 10-row transactions; the
     * half-drain point in 100-row ones), what the writer managed, and the end-to-end latency (commit returned →
     * consumer received) of its events; at the cost point also where the CPU went, from the first write until
     * the contender had delivered and acknowledged the last event ({@code null} elsewhere).
     */
    record LatencyPoint(String label, double rowsPerSecond, double writtenPerSecond, long events, double p50Ms,
                        double p99Ms, double maxMs, CpuMeter.Split cpu) {

        /** The contender's JVM CPU per event, µs; NaN where not measured. */
        double jvmMicros() {
            return cpu == null || events == 0 ? Double.NaN : cpu.relayJvm() * 1e6 / events;
        }

        /** The CPU of the contender's database sessions (its walsender included) per event, µs. */
        double dbMicros() {
            return cpu == null || events == 0 ? Double.NaN : cpu.relayDb() * 1e6 / events;
        }
    }

    /** Writers flat out while the relay runs: what was written, what was delivered, what was left over. */
    record Saturation(double writeRate, double deliveredRate, long backlogAtEnd, double catchUpSeconds) {
    }

    /** The consumer's verdict (test-kit DeliveryReport, by benchmark sequence number). */
    record Verdict(long expected, long lost, long duplicates, long orderViolations, long splitKeys,
                   long unexpected, long unidentified) {
        boolean nothingLost() {
            return lost == 0;
        }
    }
}
