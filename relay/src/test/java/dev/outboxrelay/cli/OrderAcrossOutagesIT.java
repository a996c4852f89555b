package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.KafkaAcls;
import dev.outboxrelay.testkit.Pacing;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Per-key order across failures that make the producer give records up, with the shipped jar in both modes and 20
 * keys under load: a broker down for several times the producer's {@code delivery.timeout.ms} (lowered here, so
 * that batches do expire), and the producer's ACLs taken away (a new producer id is then refused:
 * {@code ClusterAuthorizationException}, fatal to that producer) and given back. A consumer that keeps the first
 * copy of each id sees every event once, in per-key order; the relay recovers by itself, without a restart.
 *
 * <p>The outage test's figures go to {@code target/order-outage.md}. The bench runs it with Kafka's default producer
 * timeouts and an outage longer than their 120 s {@code delivery.timeout.ms}:
 * {@code -Doutage.seconds=150 -Doutage.defaults=true} (bench/results/2026-12-06-order-outage.md).
 */
class OrderAcrossOutagesIT {

    private static final int KEYS = 20;
    /** Several delivery timeouts (3 s here), unless the bench asks for more. */
    private static final Duration OUTAGE = Duration.ofSeconds(Integer.getInteger("outage.seconds", 12));
    /** The bench's run: the shipped producer timeouts (delivery.timeout.ms 120 s), not the lowered ones. */
    private static final boolean DEFAULTS = Boolean.getBoolean("outage.defaults");
    private static final List<String> MODES = List.of("poll", "cdc");

    @Test
    void aBrokerDownForLongerThanTheDeliveryTimeoutReordersNoKey() throws Exception {
        try (TestKafka kafka = TestKafka.start(); Run run = new Run("order-outage")) {
            for (String mode : MODES) {
                kafka.createTopic(run.topic(mode), 3);
            }
            run.start(relay -> relay.kafka(kafka), DEFAULTS ? new String[0] : new String[] {
                "--kafka.delivery.timeout.ms=3000", "--kafka.request.timeout.ms=1000", "--kafka.max.block.ms=2000"});
            run.write(Duration.ofSeconds(2));
            long stopped = System.nanoTime();
            kafka.stop();
            for (String mode : MODES) {
                await().atMost(Duration.ofSeconds(30)).until(() -> status(run.relays.get(mode)) == 503);
            }
            Pacing.pause(OUTAGE); // writers keep writing: the relays' producers expire batch after batch
            kafka.restart();
            long restarted = System.nanoTime();
            Pacing.pause(3000); // writers go on after the broker is back
            run.stopWriting();
            StringBuilder md = new StringBuilder("# Per-key order across a broker outage\n\n`OrderAcrossOutagesIT`, "
                    + (DEFAULTS ? "Kafka's default producer timeouts (delivery.timeout.ms 120 s, request.timeout.ms"
                    + " 30 s)" : "delivery.timeout.ms 3 s, request.timeout.ms 1 s") + "; broker stopped "
                    + (restarted - stopped) / 1_000_000_000 + " s; " + KEYS + " keys, ~200 events/s per mode.\n\n"
                    + "| mode | events written | records read | duplicates | first-delivery order violations | lost"
                    + " | producer rebuilds | events re-sent for order | restart -> all delivered |\n"
                    + "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n");
            for (String mode : MODES) {
                DeliveryReport report = run.assertDeliveredInOrder(mode, kafka.bootstrapServers(), Map.of());
                long delivered = System.nanoTime();
                RelayProcess relay = run.relays.get(mode);
                md.append("| ").append(mode).append(" | ").append(run.ids.get(mode).size()).append(" | ")
                        .append(report.totalRecords()).append(" | ").append(report.duplicateCount()).append(" | ")
                        .append(report.orderViolations().size()).append(" | ").append(report.lostIds().size())
                        .append(" | ").append((long) metric(relay, "outbox_relay_producer_rebuilds_total"))
                        .append(" | ").append((long) metric(relay, "outbox_relay_resent_for_order_events_total"))
                        .append(" | ").append((delivered - restarted) / 1_000_000).append(" ms (at most) |\n");
                assertThat(metric(relay, "outbox_relay_producer_rebuilds_total")).as("%s rebuilt its producer", mode)
                        .isPositive();
                assertThat(metric(relay, "outbox_relay_resent_for_order_events_total")).as(mode).isPositive();
                assertThat(relay.logText()).as(mode).doesNotContain("Exception in thread");
            }
            java.nio.file.Files.writeString(java.nio.file.Path.of("target", "order-outage.md"), md.toString());
        }
    }

    @Test
    void aProducerRefusedItsProducerIdRecoversByItselfOnceTheAclsAreBack() throws Exception {
        try (TestKafka kafka = TestKafka.startWithAuthorizer(Map.of("auto.create.topics.enable", "false"));
             Run run = new Run("order-acl")) {
            KafkaAcls acls = KafkaAcls.of(kafka);
            Map<String, String> env = Map.of("RELAY_KAFKA_SASL_JAAS_CONFIG",
                    TestKafka.clientSecurity(TestKafka.USER, TestKafka.USER_PASSWORD).get("sasl.jaas.config"));
            for (String mode : MODES) {
                kafka.createTopic(run.topic(mode), 3);
                acls.grantIdempotentProducer(TestKafka.USER, run.topic(mode));
            }
            run.start(relay -> relay.kafka(kafka).env(env), "--kafka.security.protocol=SASL_PLAINTEXT",
                    "--kafka.sasl.mechanism=PLAIN");
            run.write(Duration.ofSeconds(2));
            for (String mode : MODES) {
                acls.revokeIdempotentProducer(TestKafka.USER, run.topic(mode));
            }
            for (String mode : MODES) {
                RelayProcess relay = run.relays.get(mode);
                await().atMost(Duration.ofSeconds(60)).until(() -> status(relay) == 503
                        && relay.readiness().contains("ClusterAuthorizationException"));
                assertThat(relay.process.isAlive()).as("%s waits, it does not exit", mode).isTrue();
            }
            for (String mode : MODES) {
                acls.grantIdempotentProducer(TestKafka.USER, run.topic(mode));
            }
            Pacing.pause(2000); // writers go on after the ACL is back
            run.stopWriting();
            for (String mode : MODES) {
                run.assertDeliveredInOrder(mode, kafka.bootstrapServers(), kafka.clientProperties());
                assertThat(run.relays.get(mode).logText()).as(mode)
                        .contains("Kafka producer rebuilt after ClusterAuthorizationException");
            }
        }
    }

    /** Both modes' databases, relays and writers (20 keys, about 200 events/s each). */
    private static final class Run implements AutoCloseable {
        final String name;
        final Map<String, TestDatabase> databases = new LinkedHashMap<>();
        final Map<String, RelayProcess> relays = new LinkedHashMap<>();
        final List<PublishingRelay> started = new ArrayList<>();
        final Map<String, List<String>> ids = new HashMap<>();
        final List<Thread> writers = new ArrayList<>();
        final AtomicBoolean writing = new AtomicBoolean(true);

        Run(String name) {
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

        /** Starts the writers, and returns after {@code warmUp} of writing. */
        void write(Duration warmUp) throws InterruptedException {
            for (String mode : relays.keySet()) {
                OutboxWriter writer = new OutboxWriter(databases.get(mode), "public.outbox");
                Thread t = new Thread(() -> {
                    for (int round = 0; writing.get(); round++) {
                        List<OutboxWriter.Row> rows = new ArrayList<>();
                        for (int i = 0; i < 10; i++) {
                            rows.add(OutboxWriter.Row.of("Order", "k-" + ((round * 10 + i) % KEYS), round * 10 + i));
                        }
                        ids.get(mode).addAll(writer.insert(rows));
                        try {
                            Pacing.pause(50); // ~200 events/s per mode
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

        /** Every written event arrived, first copies in per-key order; the relay is ready and the table drained. */
        DeliveryReport assertDeliveredInOrder(String mode, String bootstrap, Map<String, Object> client)
                throws Exception {
            List<String> written = new ArrayList<>(ids.get(mode));
            assertThat(written).as("%s: events written", mode).hasSizeGreaterThan(200);
            List<ReadRecord> records = new TopicReader(bootstrap, client).readUntilIds(topic(mode),
                    new HashSet<>(written), Duration.ofSeconds(120));
            DeliveryReport report = DeliveryReport.of(records, written);
            assertThat(report.atLeastOnceInOrder()).as("%s: %s", mode, report).isTrue();
            RelayProcess relay = relays.get(mode);
            await().atMost(Duration.ofSeconds(60)).until(() -> status(relay) == 200);
            OutboxWriter writer = new OutboxWriter(databases.get(mode), "public.outbox");
            await().atMost(Duration.ofSeconds(60)).until(() -> writer.unsent() == 0);
            assertThat(relay.process.isAlive()).isTrue();
            return report;
        }

        @Override
        public void close() throws Exception {
            writing.set(false);
            for (Thread t : writers) {
                t.join(30_000);
            }
            for (PublishingRelay r : started) {
                r.close();
            }
        }
    }

    private static int status(RelayProcess relay) {
        HttpResponse<String> r = relay.get("/health/ready");
        return r == null ? -1 : r.statusCode();
    }

    /** A counter's value on the relay's /metrics (summed over its series); 0 when absent. */
    static double metric(RelayProcess relay, String name) {
        HttpResponse<String> r = relay.get("/metrics");
        double sum = 0;
        if (r != null) {
            for (String line : r.body().split("\n")) {
                if (line.startsWith(name + "{") || line.startsWith(name + " ")) {
                    sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                }
            }
        }
        return sum;
    }
}
