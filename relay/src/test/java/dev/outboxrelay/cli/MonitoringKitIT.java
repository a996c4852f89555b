package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * deploy/'s Prometheus alert rules and Grafana dashboard use only metrics a running relay exports: the jar in CDC
 * mode relays a workload, and every metric name their expressions reference is in its {@code /metrics}.
 */
class MonitoringKitIT {

    private static final Path DEPLOY = Path.of("..", "deploy").toAbsolutePath().normalize();
    /** Metric names in PromQL: ours and the binders' families; Prometheus' own {@code up} is not the relay's. */
    private static final Pattern METRIC = Pattern.compile("\\b((?:outbox_relay|jvm|process|system|kafka_producer)_[a-z0-9_]+)");

    private PublishingRelay started;
    private RelayProcess relay;

    @AfterEach
    void tearDown() throws Exception {
        if (started != null) {
            started.close();
        }
    }

    @Test
    void alertRulesAndDashboardReferenceOnlyExportedMetrics() throws Exception {
        Set<String> referenced = new TreeSet<>();
        JsonNode rules = new ObjectMapper(new YAMLFactory()).readTree(DEPLOY.resolve("prometheus/alerts.yml").toFile());
        List<String> alerts = new ArrayList<>();
        for (JsonNode rule : rules.get("groups").get(0).get("rules")) {
            alerts.add(rule.get("alert").asText());
            referenced.addAll(names(rule.get("expr").asText()));
        }
        assertThat(alerts).as("the alerts a platform team asked for").contains("OutboxRelayDown",
                "OutboxRelayNotReady", "OutboxBacklogTooOld", "OutboxDeadLetters", "OutboxSlotRetainsWal");
        JsonNode dashboard = new ObjectMapper().readTree(DEPLOY.resolve("grafana/outbox-relay.json").toFile());
        for (JsonNode panel : dashboard.get("panels")) {
            for (JsonNode target : panel.get("targets")) {
                referenced.addAll(names(target.get("expr").asText()));
            }
        }
        referenced.addAll(names(dashboard.get("templating").toString()));

        TestKafka kafka = TestKafka.shared();
        kafka.createTopic("monitoring-it.Order", 1);
        started = PublishingRelay.of("monitoring", "cdc").kafka(kafka)
                .args("--topic-template", "monitoring-it.${aggregateType}").start();
        relay = started.relay;
        TestDatabase database = started.database;
        Set<String> ids = new HashSet<>();
        for (int round = 0; round < 5; round++) {
            List<OutboxWriter.Row> rows = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                rows.add(OutboxWriter.Row.of("Order", "o-" + (i % 50), round * 1000 + i));
            }
            ids.addAll(new OutboxWriter(database, "public.outbox").insert(rows));
        }
        TopicReader.of(kafka).readUntilIds("monitoring-it.Order", ids, Duration.ofSeconds(90));
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(exported())
                .as("metrics referenced by deploy/prometheus/alerts.yml and deploy/grafana/outbox-relay.json")
                .containsAll(referenced));
        assertThat(relay.get("/metrics").body()).contains("outbox_relay_cdc_connected{relay=\"outbox-relay\"} 1.0");
    }

    /** Names of the samples in /metrics, e.g. {@code outbox_relay_end_to_end_lag_seconds_bucket}. */
    private Set<String> exported() {
        Set<String> names = new TreeSet<>();
        for (String line : relay.get("/metrics").body().lines().toList()) {
            if (!line.startsWith("#") && !line.isBlank()) {
                names.add(line.split("[{ ]", 2)[0]);
            }
        }
        return names;
    }

    private static Set<String> names(String expression) {
        Set<String> names = new TreeSet<>();
        Matcher m = METRIC.matcher(expression);
        while (m.find()) {
            names.add(m.group(1));
        }
        return names;
    }
}
