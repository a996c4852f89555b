package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.KafkaAcls;
import dev.outboxrelay.testkit.Pacing;
import dev.outboxrelay.testkit.TestKafka;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
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
    private static final List<String> MODES = BothModesRun.MODES;

    @Test
    void aBrokerDownForLongerThanTheDeliveryTimeoutReordersNoKey() throws Exception {
        try (TestKafka kafka = TestKafka.start(); BothModesRun run = new BothModesRun("order-outage")) {
            for (String mode : MODES) {
                kafka.createTopic(run.topic(mode), 3);
            }
            run.start(relay -> relay.kafka(kafka), DEFAULTS ? new String[0] : new String[] {
                "--kafka.delivery.timeout.ms=3000", "--kafka.request.timeout.ms=1000", "--kafka.max.block.ms=2000"});
            run.write(KEYS, 50, Duration.ofSeconds(2)); // ~200 events/s per mode
            long stopped = System.nanoTime();
            kafka.stop();
            for (String mode : MODES) {
                RelayProcess relay = run.relays.get(mode);
                await().atMost(Duration.ofSeconds(30)).until(() -> BothModesRun.status(relay, "/health/ready") == 503);
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
             BothModesRun run = new BothModesRun("order-acl")) {
            KafkaAcls acls = KafkaAcls.of(kafka);
            Map<String, String> env = Map.of("RELAY_KAFKA_SASL_JAAS_CONFIG",
                    TestKafka.clientSecurity(TestKafka.USER, TestKafka.USER_PASSWORD).get("sasl.jaas.config"));
            for (String mode : MODES) {
                kafka.createTopic(run.topic(mode), 3);
                acls.grantIdempotentProducer(TestKafka.USER, run.topic(mode));
            }
            run.start(relay -> relay.kafka(kafka).env(env), "--kafka.security.protocol=SASL_PLAINTEXT",
                    "--kafka.sasl.mechanism=PLAIN");
            run.write(KEYS, 50, Duration.ofSeconds(2)); // ~200 events/s per mode
            for (String mode : MODES) {
                acls.revokeIdempotentProducer(TestKafka.USER, run.topic(mode));
            }
            for (String mode : MODES) {
                RelayProcess relay = run.relays.get(mode);
                await().atMost(Duration.ofSeconds(60)).until(() -> BothModesRun.status(relay, "/health/ready") == 503
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
