package dev.outboxrelay.bench;

import java.time.Duration;

/**
 * The sizes of one run.
 *
 * @param label         {@code quick}, {@code full} or {@code smoke}; names the result file
 * @param writers       the application writer the issues measure against: I is its flat-out rate, the steady state
 *                      offers half of it, the full-load phase runs it flat out ("a single writer committing
 *                      100-row transactions as fast as it can")
 * @param fillThreads   writer threads (each with its own connection) that write warm-ups and backlogs, and load
 *                      the stress phase and the database's own insert ceiling
 * @param aggregates    distinct aggregate ids (record keys)
 * @param partitions    partitions of every scenario topic
 * @param kafkaRecords  records sent for the raw-producer ceiling K
 * @param insertRows    rows written for the insert ceiling I
 * @param warmup        events relayed before the backlog, so that a fresh relay JVM has compiled its hot
 *                      paths (a relay runs for days) before anything is timed
 * @param backlog       pre-filled backlog every contender drains
 * @param naiveCap      how long the naive poller may drain before its rate is taken
 * @param steady        duration of the steady state at 50 % of I
 * @param saturation    duration of the full-write-load phase (the writer flat out)
 * @param stress        duration of the stress phase ({@code fillThreads} writers flat out)
 * @param steadyRate    rows/s offered in the steady state; 0 means 50 % of the measured I
 * @param latencyPhase  duration of each point of the latency curve (idle, 1,000/s, 5,000/s in 10-row transactions)
 * @param quietSpell    how long nothing is written before the curve's last point (1,000/s again): whether the
 *                      relay is slow to wake after a quiet spell
 */
record BenchConfig(String label, int writers, int fillThreads, int aggregates, int partitions, long kafkaRecords,
                   long insertRows, long warmup, long backlog, Duration naiveCap, Duration steady,
                   Duration saturation, Duration stress, double steadyRate, Duration latencyPhase,
                   Duration quietSpell) {

    /** The same sizes with a fixed steady-state rate, so that A/B runs offer both jars the same load. */
    BenchConfig withSteadyRate(double rowsPerSecond) {
        return new BenchConfig(label, writers, fillThreads, aggregates, partitions, kafkaRecords, insertRows, warmup,
                backlog, naiveCap, steady, saturation, stress, rowsPerSecond, latencyPhase, quietSpell);
    }

    /** About 10 minutes on the 2-core machine (every contender). */
    static BenchConfig quick() {
        return new BenchConfig("quick", 1, 4, 1000, 3, 50_000, 20_000, 3_000, 10_000, Duration.ofSeconds(5),
                Duration.ofSeconds(8), Duration.ofSeconds(4), Duration.ofSeconds(4), 0, Duration.ofSeconds(10),
                Duration.ofSeconds(20));
    }

    /** About 30 minutes on the 2-core machine. */
    static BenchConfig full() {
        return new BenchConfig("full", 1, 4, 1000, 3, 1_000_000, 200_000, 20_000, 200_000, Duration.ofSeconds(20),
                Duration.ofSeconds(60), Duration.ofSeconds(30), Duration.ofSeconds(30), 0, Duration.ofSeconds(20),
                Duration.ofSeconds(60));
    }

    /** Seconds per scenario, for the smoke test: proves the code runs and loses nothing, measures nothing. */
    static BenchConfig smoke() {
        return new BenchConfig("smoke", 1, 2, 10, 2, 1_000, 500, 50, 200, Duration.ofSeconds(1),
                Duration.ofSeconds(2), Duration.ofSeconds(1), Duration.ofSeconds(1), 0, Duration.ofSeconds(1),
                Duration.ofSeconds(1));
    }
}
