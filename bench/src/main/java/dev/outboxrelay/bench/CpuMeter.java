package dev.outboxrelay.bench;

import dev.outboxrelay.testkit.TestDatabase;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where the machine's CPU went during a phase: the relay's JVM, the relay's PostgreSQL sessions (including its
 * walsender), the writers' PostgreSQL sessions, the bench JVM and the Kafka broker's process (writer clients, consumer, broker) and the
 * machine as a whole. On a small machine everything shares the same cores, so this says more about a relay
 * than its latency alone: CPU per event is what it costs wherever it runs. Read from the OS (process CPU times,
 * {@code /proc/stat}); a participant whose times cannot be read counts as zero, the machine total as unknown.
 */
final class CpuMeter {

    /** CPU seconds per participant over {@code wallSeconds}; {@code machine} is NaN when unknown. */
    record Split(double wallSeconds, double relayJvm, double relayDb, double writersDb, double benchJvm,
                 double machine) {

        /** The relay's own CPU (JVM and its database sessions) per event, in microseconds. */
        double relayMicrosPerEvent(long events) {
            return events == 0 ? Double.NaN : (relayJvm + relayDb) * 1e6 / events;
        }
    }

    private enum Role { RELAY_JVM, RELAY_DB, WRITERS_DB, BENCH_JVM }

    /** USER_HZ: the unit of /proc/stat, 100 on every mainstream Linux kernel. */
    private static final double TICKS_PER_SECOND = 100;

    private static final long SAMPLE_MILLIS = 500;

    private final TestDatabase db;
    private final OptionalLong relayPid;
    private final long brokerPid;
    private final long startNanos = System.nanoTime();
    private final double startMachine = machineBusySeconds();
    private final Map<Long, Role> roles = new HashMap<>();
    private final Map<Long, Long> firstCpu = new HashMap<>();
    private final Map<Long, Long> lastCpu = new HashMap<>();
    private final Thread sampler;

    private CpuMeter(TestDatabase db, OptionalLong relayPid, long brokerPid) throws SQLException {
        this.db = db;
        this.relayPid = relayPid;
        this.brokerPid = brokerPid;
        sample(true);
        // The writers connect per phase and are gone at its end: their last reading is what counts.
        this.sampler = new Thread(() -> {
            try {
                while (true) {
                    Thread.sleep(SAMPLE_MILLIS);
                    sample(false);
                }
            } catch (InterruptedException | SQLException e) {
                // stopped, or the database went away: stop() reads once more
            }
        }, "bench-cpu-sampler");
        sampler.setDaemon(true);
        sampler.start();
    }

    /**
     * Starts measuring; {@code relayPid} is the relay's process when it runs as one; the broker's process counts
     * with the bench's harness.
     */
    static CpuMeter start(TestDatabase db, OptionalLong relayPid, long brokerPid) throws SQLException {
        return new CpuMeter(db, relayPid, brokerPid);
    }

    /**
     * The split since {@link #start}. Sessions are sampled every 500 ms; one that started meanwhile counts with
     * all its CPU time, one that ended counts up to its last sample.
     */
    Split stop() throws SQLException, InterruptedException {
        sampler.interrupt();
        sampler.join();
        sample(false);
        double[] seconds = new double[Role.values().length];
        synchronized (this) {
            for (Map.Entry<Long, Role> e : roles.entrySet()) {
                long delta = lastCpu.getOrDefault(e.getKey(), 0L) - firstCpu.getOrDefault(e.getKey(), 0L);
                if (delta > 0) {
                    seconds[e.getValue().ordinal()] += delta / 1e9;
                }
            }
        }
        return new Split((System.nanoTime() - startNanos) / 1e9, seconds[Role.RELAY_JVM.ordinal()],
                seconds[Role.RELAY_DB.ordinal()], seconds[Role.WRITERS_DB.ordinal()],
                seconds[Role.BENCH_JVM.ordinal()], machineBusySeconds() - startMachine);
    }

    private synchronized void sample(boolean atStart) throws SQLException {
        for (Map.Entry<Long, Role> e : participants(db, relayPid, brokerPid).entrySet()) {
            long pid = e.getKey();
            long cpu = e.getValue() == Role.RELAY_DB || e.getValue() == Role.WRITERS_DB ? sessionCpuNanos(pid)
                    .orElse(0L) : cpuNanos(pid);
            if (roles.putIfAbsent(pid, e.getValue()) == null) {
                firstCpu.put(pid, atStart ? cpu : 0L);
            }
            if (cpu > 0) {
                lastCpu.put(pid, cpu);
            }
        }
    }

    private static Map<Long, Role> participants(TestDatabase db, OptionalLong relayPid, long brokerPid)
            throws SQLException {
        Map<Long, Role> roles = new HashMap<>();
        roles.put(ProcessHandle.current().pid(), Role.BENCH_JVM);
        roles.put(brokerPid, Role.BENCH_JVM);
        relayPid.ifPresent(pid -> roles.put(pid, Role.RELAY_JVM));
        try (Connection c = db.connect(); Statement st = c.createStatement();
             ResultSet rs = st.executeQuery("SELECT pid, usename FROM pg_stat_activity"
                     + " WHERE datname = current_database() AND pid <> pg_backend_pid()"
                     + " AND backend_type IN ('client backend', 'walsender')")) {
            while (rs.next()) {
                roles.put(rs.getLong(1), db.relayUser().equals(rs.getString(2)) ? Role.RELAY_DB : Role.WRITERS_DB);
            }
        }
        return roles;
    }

    /**
     * CPU time of a single-threaded process (a PostgreSQL backend or walsender) in nanoseconds, from
     * {@code /proc/<pid>/schedstat} (the scheduler's own count, where the OS's process times come in 10 ms ticks
     * and a short phase of one session reads as 0); the process times when schedstat is missing; empty when the
     * process is gone or not readable.
     */
    static Optional<Long> sessionCpuNanos(long pid) {
        try {
            String line = Files.readString(Path.of("/proc", Long.toString(pid), "schedstat")).trim();
            return Optional.of(Long.parseLong(line.split("\\s+")[0]));
        } catch (IOException | RuntimeException e) {
            return ProcessHandle.of(pid).flatMap(h -> h.info().totalCpuDuration()).map(Duration::toNanos);
        }
    }

    /** Total CPU time of a process, or 0 when it is gone or not readable. */
    static long cpuNanos(long pid) {
        return ProcessHandle.of(pid).flatMap(h -> h.info().totalCpuDuration()).map(Duration::toNanos).orElse(0L);
    }

    /** Busy CPU seconds of the whole machine since boot (all cores), NaN when /proc/stat is not there. */
    private static double machineBusySeconds() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long busy = 0;
            for (int i = 1; i < f.length && i <= 8; i++) {
                if (i != 4 && i != 5) { // idle, iowait
                    busy += Long.parseLong(f[i]);
                }
            }
            return busy / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return Double.NaN;
        }
    }
}
