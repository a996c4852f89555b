package dev.outboxrelay.bench;

import java.util.OptionalLong;

/**
 * What one contender achieved.
 *
 * @param name       contender name
 * @param drain      the backlog drain
 * @param steady     the steady state at 50 % of I; {@code null} for baselines
 * @param saturation the full-write-load phase (the writer flat out); {@code null} for baselines
 * @param stress     the stress phase (several writers flat out); {@code null} for baselines
 * @param curve      latency at fixed offered loads (idle, 1,000/s, 5,000/s); empty for baselines
 * @param peakRss    peak RSS of the contender's process; empty when it ran inside the bench JVM
 * @param verdict    what the consumer saw
 * @param loadAvg    1-minute load average when the scenario ended
 * @param quietCpu   the relay JVM's CPU (% of one core) during the quiet spell before the curve's last point;
 *                   NaN for baselines
 */
record Outcome(String name, Drain drain, Steady steady, Saturation saturation, Saturation stress,
               java.util.List<LatencyPoint> curve, OptionalLong peakRss,
               Verdict verdict, double loadAvg, double quietCpu) {

    /** {@code events} drained in {@code seconds}; {@code capped} when the time cap ended it first. */
    record Drain(long events, double seconds, boolean capped) {
        double rate() {
            return events / seconds;
        }
    }

    /**
     * Steady state: offered rate, end-to-end latency (commit returned → consumer received), backlog, and where
     * the CPU went from the first write until the relay caught up.
     */
    record Steady(double targetRate, double offeredRate, long events, double p50Ms, double p99Ms, double p999Ms,
                  double maxMs, long maxBacklog, boolean caughtUp, CpuMeter.Split cpu) {
    }

    /**
     * One point of the latency curve: {@code rowsPerSecond} offered in 10-row transactions for the phase,
     * end-to-end latency (commit returned → consumer received) of its events.
     */
    record LatencyPoint(String label, double rowsPerSecond, long events, double p50Ms, double p99Ms, double maxMs) {
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
