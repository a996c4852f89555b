package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.Pacing;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;

/**
 * The repeated set-up of the outage ITs: a publishing relay of each mode on a database of its own (started side by
 * side, {@link PublishingRelay#startAll}), each with a writer thread inserting 10-row transactions over a fixed set of
 * keys until told to stop, and the check that everything written arrived, first copies in per-key order. A mode's
 * topic and relay name are {@code <name>-<mode>}.
 */
final class BothModesRun implements AutoCloseable {

    static final List<String> MODES = List.of("poll", "cdc");

    final Map<String, TestDatabase> databases = new LinkedHashMap<>();
    final Map<String, RelayProcess> relays = new LinkedHashMap<>();
    final Map<String, List<String>> ids = new LinkedHashMap<>();
    private final String name;
    private final List<PublishingRelay> started = new ArrayList<>();
    private final List<Thread> writers = new ArrayList<>();
    private final AtomicBoolean writing = new AtomicBoolean(true);

    BothModesRun(String name) {
        this.name = name;
    }

    String topic(String mode) {
        return name + "-" + mode;
    }

    /** A publishing relay per mode, started at once; {@code broker} gives each its broker and environment. */
    void start(UnaryOperator<PublishingRelay.Builder> broker, String... extra) throws Exception {
        List<PublishingRelay.Builder> builders = new ArrayList<>();
        for (String mode : MODES) {
            builders.add(broker.apply(PublishingRelay.of(topic(mode), mode))
                    .args("--topic-template", topic(mode), "--relay-name", topic(mode)).args(extra));
        }
        for (PublishingRelay r : PublishingRelay.startAll(builders)) {
            started.add(r);
            databases.put(r.mode, r.database);
            relays.put(r.mode, r.relay);
            ids.put(r.mode, Collections.synchronizedList(new ArrayList<>()));
        }
    }

    /**
     * Starts a writer per mode, 10 events over {@code keys} keys every {@code paceMillis}, and returns after
     * {@code warmUp} of writing.
     */
    void write(int keys, long paceMillis, Duration warmUp) throws InterruptedException {
        for (String mode : relays.keySet()) {
            OutboxWriter writer = new OutboxWriter(databases.get(mode), "public.outbox");
            Thread t = new Thread(() -> {
                for (int round = 0; writing.get(); round++) {
                    List<OutboxWriter.Row> rows = new ArrayList<>();
                    for (int i = 0; i < 10; i++) {
                        rows.add(OutboxWriter.Row.of("Order", "k-" + ((round * 10 + i) % keys), round * 10 + i));
                    }
                    ids.get(mode).addAll(writer.insert(rows));
                    try {
                        Pacing.pause(paceMillis);
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "writer-" + mode);
            t.start();
            writers.add(t);
        }
        Pacing.pause(warmUp);
    }

    void stopWriting() throws InterruptedException {
        writing.set(false);
        for (Thread t : writers) {
            t.join(30_000);
        }
    }

    /** Every written event arrived, first copies in per-key order; the relay is ready, alive and the table drained. */
    DeliveryReport assertDeliveredInOrder(String mode, String bootstrap, Map<String, Object> client)
            throws Exception {
        List<String> written = new ArrayList<>(ids.get(mode));
        assertThat(written).as("%s: events written", mode).hasSizeGreaterThan(200);
        List<ReadRecord> records = new TopicReader(bootstrap, client).readUntilIds(topic(mode),
                new HashSet<>(written), Duration.ofSeconds(180));
        DeliveryReport report = DeliveryReport.of(records, written);
        assertThat(report.atLeastOnceInOrder()).as("%s: %s", mode, report).isTrue();
        RelayProcess relay = relays.get(mode);
        await().atMost(Duration.ofSeconds(60)).until(() -> status(relay, "/health/ready") == 200);
        OutboxWriter writer = new OutboxWriter(databases.get(mode), "public.outbox");
        await().atMost(Duration.ofSeconds(60)).until(() -> writer.unsent() == 0);
        assertThat(relay.process.isAlive()).isTrue();
        return report;
    }

    /** The HTTP status of {@code path} on the relay; -1 when it does not answer. */
    static int status(RelayProcess relay, String path) {
        HttpResponse<String> r = relay.get(path);
        return r == null ? -1 : r.statusCode();
    }

    @Override
    public void close() throws Exception {
        stopWriting();
        for (PublishingRelay r : started) {
            r.close();
        }
    }
}
