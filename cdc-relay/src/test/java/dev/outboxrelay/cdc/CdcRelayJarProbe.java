package dev.outboxrelay.cdc;

import dev.outboxrelay.testkit.Pacing;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Hand-run probe of the shaded relay jar in CDC mode, shaped like the benchmark (not a test, never run by the
 * build): the relay runs as a subprocess, so its peak RSS is its own and JFR can be attached through JVM options.
 *
 * <ol>
 *   <li><b>drain</b>: warm-up rows, SIGSTOP the relay, write a backlog (4 writers, 100-row transactions,
 *       ~300-byte payloads over 1,000 keys), SIGCONT; rate = backlog / (resume → every row marked sent). The
 *       relay keeps its slot, so the backlog comes from the WAL, not from the rescan.</li>
 *   <li><b>steady</b>: writers offer a fixed rate for a while; every 250 ms the unsent backlog is sampled; at
 *       the end p50/p99/max of {@code sent_at - created_at} (row's transaction start → marked after Kafka's ack,
 *       so slightly more than what a consumer sees).</li>
 * </ol>
 *
 * <p>Usage: {@code java -cp <test classpath> dev.outboxrelay.cdc.CdcRelayJarProbe <relay jar> <backlog rows>
 * <steady rows/s> <steady seconds> [jvm options...] [-- relay options...]}. Progress goes to stdout, the relay's
 * log to {@code /tmp/cdc-jar-probe-relay.log}.
 */
final class CdcRelayJarProbe {

    private static final int WRITERS = 4;
    private static final int TX_ROWS = 100;
    private static final int AGGREGATES = 1000;
    private static final AtomicLong SEQ = new AtomicLong();

    private CdcRelayJarProbe() {
    }

    public static void main(String[] args) {
        try {
            run(args);
        } catch (Exception | AssertionError e) {
            e.printStackTrace();
            System.exit(1); // the broker and the database keep non-daemon threads alive
        }
        System.exit(0);
    }

    private static void run(String[] args) throws Exception {
        Path jar = Path.of(args[0]);
        long backlog = Long.parseLong(args[1]);
        double rate = Double.parseDouble(args[2]);
        int seconds = Integer.parseInt(args[3]);
        List<String> rest = Arrays.asList(args).subList(4, args.length);
        int dash = rest.indexOf("--");
        List<String> jvm = dash < 0 ? rest : rest.subList(0, dash);
        List<String> relayOptions = dash < 0 ? List.of() : rest.subList(dash + 1, rest.size());

        TestDatabase db = TestPostgres.shared().createDatabase("jarprobe");
        CdcRelays.migrate(db, "public.outbox");
        String topic = "jarprobe-" + UUID.randomUUID().toString().substring(0, 8);
        TestKafka.shared().createTopic(topic, 3);

        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(jvm);
        cmd.addAll(List.of("-jar", jar.toString(), "run", "--mode", "cdc", "--db-url", db.jdbcUrl(),
                "--db-user", db.relayUser(), "--kafka-bootstrap", TestKafka.shared().bootstrapServers(),
                "--topic-template", topic, "--on-publish", "mark", "--http-port", "0"));
        cmd.addAll(relayOptions);
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true)
                .redirectOutput(Path.of("/tmp/cdc-jar-probe-relay.log").toFile());
        pb.environment().put("RELAY_DB_PASSWORD", db.relayPassword());
        Process relay = pb.start();
        try {
            while (db.queryLong("SELECT count(*) FROM pg_replication_slots WHERE active AND database = '"
                    + db.name() + "'") == 0) {
                if (!relay.isAlive()) {
                    throw new IllegalStateException("relay exited " + relay.exitValue());
                }
                Pacing.pause(200);
            }
            write(db, 20_000, 0);
            awaitSent(db, relay);
            System.out.println("warm-up done");

            signal(relay, "STOP");
            long w0 = System.nanoTime();
            write(db, backlog, 0);
            System.out.printf("backlog %d rows written in %.1f s%n", backlog, (System.nanoTime() - w0) / 1e9);
            long t0 = System.nanoTime();
            signal(relay, "CONT");
            awaitSent(db, relay);
            double drain = (System.nanoTime() - t0) / 1e9;
            System.out.printf("PROBE drain: %d events in %.2f s = %.0f ev/s, load %s%n", backlog, drain,
                    backlog / drain, Files.readString(Path.of("/proc/loadavg")).trim());

            if (seconds > 0) {
                long before = db.queryLong("SELECT coalesce(max(seq), 0) FROM outbox");
                Thread sampler = new Thread(() -> sample(db), "sampler");
                sampler.setDaemon(true);
                long s0 = System.nanoTime();
                sampler.start();
                long rows = (long) (rate * seconds);
                write(db, rows, rate);
                double wrote = (System.nanoTime() - s0) / 1e9;
                sampler.interrupt();
                awaitSent(db, relay);
                double all = (System.nanoTime() - s0) / 1e9;
                System.out.printf("PROBE steady: offered %.0f rows/s (%d rows in %.1f s), all sent after %.1f s;"
                        + " latency ms p50 %s p99 %s max %s; load %s%n", rows / wrote, rows, wrote, all,
                        db.queryString("SELECT round(1000 * extract(epoch FROM percentile_cont(0.5) WITHIN GROUP"
                                + " (ORDER BY sent_at - created_at)))::text FROM outbox WHERE seq > " + before),
                        db.queryString("SELECT round(1000 * extract(epoch FROM percentile_cont(0.99) WITHIN GROUP"
                                + " (ORDER BY sent_at - created_at)))::text FROM outbox WHERE seq > " + before),
                        db.queryString("SELECT round(1000 * extract(epoch FROM max(sent_at - created_at)))::text"
                                + " FROM outbox WHERE seq > " + before),
                        Files.readString(Path.of("/proc/loadavg")).trim());
            }
            // CPU seconds by process: where the machine's two cores went (relay JVM vs each PostgreSQL backend).
            if (jvm.stream().anyMatch(o -> o.startsWith("-XX:NativeMemoryTracking"))) {
                new ProcessBuilder("sh", "-c", "jcmd " + relay.pid() + " VM.native_memory summary | grep -E"
                        + " '^(Total|-) .*committed' | sed 's/reserved=[0-9]*KB, //'").inheritIO().start().waitFor();
            }
            new ProcessBuilder("sh", "-c", "ps -o pid,time,args -p " + relay.pid() + " | cut -c1-60;"
                    + " ps -eo pid,time,args | grep 'postgres: ' | grep -v grep | sort -k2 | tail -8")
                    .inheritIO().start().waitFor();
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(relay.pid()), "status"))) {
                if (line.startsWith("VmHWM") || line.startsWith("VmRSS")) {
                    System.out.println("PROBE relay " + line.replaceAll("\\s+", " "));
                }
            }
        } finally {
            signal(relay, "CONT");
            relay.destroy();
            relay.waitFor();
            db.drop();
        }
    }

    private static void sample(TestDatabase db) {
        long max = 0;
        try {
            while (!Thread.currentThread().isInterrupted()) {
                Pacing.pause(250); // one sample every 250 ms
                max = Math.max(max, unsent(db));
            }
        } catch (InterruptedException e) {
            // done
        }
        System.out.println("PROBE steady: max backlog sampled " + max);
    }

    private static long unsent(TestDatabase db) {
        // Uses the partial index outbox_unsent_idx: cheap while the relay keeps up.
        return db.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL AND dead_lettered_at IS NULL");
    }

    private static void awaitSent(TestDatabase db, Process relay) throws InterruptedException {
        while (unsent(db) > 0) {
            if (!relay.isAlive()) {
                throw new IllegalStateException("relay exited " + relay.exitValue());
            }
            Pacing.pause(50);
        }
    }

    /** Like the benchmark's writers: 4 threads, 100-row transactions, flat out or at {@code rate} rows/s. */
    private static void write(TestDatabase db, long rows, double rate) throws InterruptedException {
        AtomicLong left = new AtomicLong(rows);
        long interval = rate <= 0 ? 0 : (long) (WRITERS * TX_ROWS * 1e9 / rate);
        long start = System.nanoTime();
        List<Thread> threads = new ArrayList<>();
        for (int t = 0; t < WRITERS; t++) {
            int thread = t;
            Thread w = new Thread(() -> {
                try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement("INSERT INTO outbox"
                        + " (id, aggregate_type, aggregate_id, event_type, payload) VALUES (?, 'Order', ?,"
                        + " 'OrderPlaced', ?::jsonb)")) {
                    c.setAutoCommit(false);
                    long due = start + interval * thread / WRITERS;
                    while (true) {
                        if (interval > 0) {
                            long wait = due - System.nanoTime();
                            if (wait > 0) {
                                Pacing.pause(java.time.Duration.ofNanos(wait));
                            }
                            due += interval;
                        }
                        long n = Math.min(TX_ROWS, left.getAndAdd(-TX_ROWS));
                        if (n <= 0) {
                            return;
                        }
                        for (int i = 0; i < n; i++) {
                            long seq = SEQ.getAndIncrement();
                            String key = "order-" + (thread + WRITERS * (seq % (AGGREGATES / WRITERS)));
                            ps.setObject(1, UUID.randomUUID());
                            ps.setString(2, key);
                            ps.setString(3, payload(seq, key));
                            ps.addBatch();
                        }
                        ps.executeBatch();
                        c.commit();
                    }
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            }, "probe-writer-" + t);
            w.start();
            threads.add(w);
        }
        for (Thread w : threads) {
            w.join();
        }
    }

    private static String payload(long seq, String key) {
        int qty = (int) (seq % 5) + 1;
        return "{\"bench_seq\": " + seq + ", \"orderId\": \"" + key + "\", \"customer\": {\"id\": \"cust-"
                + (seq % 9973) + "\", \"tier\": \"gold\", \"country\": \"DE\"}, \"items\": [{\"sku\": \"SKU-"
                + (seq % 1000) + "\", \"qty\": " + qty + ", \"price\": 19.99}, {\"sku\": \"SKU-" + (seq % 777)
                + "\", \"qty\": 1, \"price\": 5.49}], \"total\": " + (qty * 1999 + 549) / 100.0
                + ", \"currency\": \"EUR\", \"status\": \"PLACED\", \"note\": \"leave at the back door, ring twice\"}";
    }

    private static void signal(Process p, String name) throws Exception {
        new ProcessBuilder("kill", "-" + name, Long.toString(p.pid())).inheritIO().start().waitFor();
    }
}
