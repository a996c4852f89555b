package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Manual throughput probe, not part of the build (the name does not end in Test): run with
 * {@code ./mvnw -o -pl cdc-relay test -Dtest=CdcThroughputProbe}. Logs events/s and the load average for
 * draining a 50,000-row backlog and for streaming 50,000 rows written by a writer, CDC and poll. It asserts only
 * that everything was relayed, never a timing.
 */
class CdcThroughputProbe {

    private static final Logger LOG = LoggerFactory.getLogger(CdcThroughputProbe.class);
    private static final int EVENTS = 50_000;


    private TestDatabase db;
    private AutoCloseable source;
    private String prefix;

    @BeforeEach
    void setUp() throws Exception {
        db = TestPostgres.shared().createDatabase("probe");
        CdcRelays.migrate(db, "public.outbox");
        // Start the broker and create the topic before measuring: neither belongs in the relay's numbers.
        prefix = "probe-" + UUID.randomUUID().toString().substring(0, 8);
        TestKafka.shared().createTopic(prefix + ".Probe", 3);
    }

    @AfterEach
    void tearDown() throws Exception {
        if (source != null) {
            source.close();
        }
        db.drop();
    }

    @Test
    void cdcDrain() throws Exception {
        prefill();
        measure("cdc drain", () -> (source = cdc()) != null);
    }

    @Test
    void cdcStream() throws Exception {
        source = cdc();
        await().atMost(Duration.ofMinutes(1)).until(((OutboxSource) source)::isHealthy);
        measure("cdc stream", this::write);
    }

    @Test
    void pollDrain() throws Exception {
        prefill();
        measure("poll drain", () -> (source = poll()) != null);
    }

    @Test
    void pollStream() throws Exception {
        source = poll();
        measure("poll stream", this::write);
    }

    private OutboxSource cdc() {
        return CdcRelays.start(CdcRelays.settings(db, "public.outbox", Map.of()).build(),
                TestKafka.shared().bootstrapServers(), Map.of("topic-template", prefix + ".${aggregateType}"),
                RelayListener.none());
    }

    private OutboxSource poll() {
        return PollBesideCdc.startPoll(db, "public.outbox", TestKafka.shared().bootstrapServers(),
                Map.of("topic-template", prefix + ".${aggregateType}"));
    }

    private void prefill() {
        db.execute("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload)"
                + " SELECT gen_random_uuid(), 'Probe', 'key-' || (g % 100), 'created', jsonb_build_object('n', g)"
                + " FROM generate_series(1, " + EVENTS + ") g");
    }

    /** An application-like writer: JDBC batches of 50 rows, one transaction each. */
    private boolean write() {
        Thread t = new Thread(() -> {
            try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement("INSERT INTO outbox"
                    + " (id, aggregate_type, aggregate_id, event_type, payload) VALUES (?, 'Probe', ?, 'created',"
                    + " ?::jsonb)")) {
                c.setAutoCommit(false);
                long t0 = System.nanoTime();
                for (int i = 0; i < EVENTS; i++) {
                    ps.setObject(1, UUID.randomUUID());
                    ps.setString(2, "key-" + (i % 100));
                    ps.setString(3, "{\"n\": " + i + "}");
                    ps.addBatch();
                    if (i % 50 == 49) {
                        ps.executeBatch();
                        c.commit();
                    }
                }
                LOG.info("writer: {} rows in {} ms", EVENTS, (System.nanoTime() - t0) / 1_000_000);
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
        }, "probe-writer");
        t.start();
        return true;
    }

    private void measure(String what, Supplier<Boolean> start) throws Exception {
        String loadBefore = Files.readString(Path.of("/proc/loadavg")).trim();
        long t0 = System.nanoTime();
        start.get();
        await().atMost(Duration.ofMinutes(10)).pollInterval(Duration.ofMillis(100)).until(() ->
                db.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL") == EVENTS);
        double seconds = (System.nanoTime() - t0) / 1e9;
        LOG.info("PROBE {}: {} events in {} s = {} ev/s (loadavg before [{}] after [{}])", what, EVENTS,
                String.format("%.2f", seconds), Math.round(EVENTS / seconds), loadBefore,
                Files.readString(Path.of("/proc/loadavg")).trim());
        assertThat(db.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL")).isZero();
    }
}
