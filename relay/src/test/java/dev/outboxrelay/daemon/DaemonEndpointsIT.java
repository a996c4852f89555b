package dev.outboxrelay.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.cli.MigratedDatabases;
import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.SourceFactory;
import dev.outboxrelay.core.config.ConfigSources;
import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.poll.PollOptions;
import dev.outboxrelay.poll.PollSourceFactory;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The daemon in poll mode against the real PostgreSQL and Kafka: /metrics counts what a consumer reads,
 * /health/ready turns 503 while the broker is down and 200 again after it is back.
 */
class DaemonEndpointsIT {

    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private TestDatabase database;
    private RelayDaemon daemon;

    @BeforeEach
    void setUp() throws Exception {
        database = MigratedDatabases.create("daemon");
    }

    @AfterEach
    void tearDown() {
        if (daemon != null) {
            daemon.close();
        }
        if (!TestKafka.shared().isRunning()) {
            TestKafka.shared().restart();
        }
        database.drop();
    }

    @Test
    void metricsCountRelayedEventsAndReadinessFollowsKafka() throws Exception {
        TestKafka kafka = TestKafka.shared();
        kafka.createTopic("daemon-it.Order", 2);
        daemon = startDaemon(kafka);
        int port = daemon.httpPort();
        assertThat(get(port, "/health/live").statusCode()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> get(port, "/health/ready").statusCode() == 200);
        assertThat(get(port, "/health/ready").body()).contains("\"status\":\"ready\"", "\"role\":\"active\"",
                "\"database\":\"up\"", "\"kafka\":\"up\"");

        List<OutboxWriter.Row> rows = new ArrayList<>();
        for (int i = 0; i < 25; i++) {
            rows.add(OutboxWriter.Row.of("Order", "o-" + (i % 5), i));
        }
        List<String> ids = new OutboxWriter(database, "public.outbox").insert(rows);
        assertThat(TopicReader.of(kafka).readUntilIds("daemon-it.Order", new java.util.HashSet<>(ids),
                Duration.ofSeconds(60))).hasSizeGreaterThanOrEqualTo(25);
        database.execute("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload, dead_lettered_at)"
                + " VALUES (gen_random_uuid(), 'Order', 'dead', 'Broken', '{}', now())");

        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            String metrics = get(port, "/metrics").body();
            assertThat(metrics).contains("outbox_relay_events_published_total{relay=\"metrics-test\",topic=\"daemon-it.Order\"} 25.0");
            assertThat(metrics).contains("outbox_relay_backlog_rows{relay=\"metrics-test\"} 0.0");
            assertThat(metrics).contains("outbox_relay_dead_letter_rows{relay=\"metrics-test\"} 1.0");
            assertThat(metrics).contains("outbox_relay_oldest_unsent_age_seconds{relay=\"metrics-test\"} 0.0");
            assertThat(metrics).contains("outbox_relay_active{relay=\"metrics-test\"} 1.0");
            assertThat(metrics).contains("outbox_relay_end_to_end_lag_seconds_count{relay=\"metrics-test\"} 25");
            assertThat(metrics).contains("outbox_relay_publish_latency_seconds_bucket{");
            assertThat(metrics).containsPattern("outbox_relay_batch_size_events_sum\\{relay=\"metrics-test\"} 25\\.0");
            assertThat(metrics).contains("outbox_relay_publish_failures_total{relay=\"metrics-test\"} 0.0");
            assertThat(metrics).contains("outbox_relay_dead_letters_total{relay=\"metrics-test\"} 0.0");
        });
        assertThat(get(port, "/metrics").headers().firstValue("Content-Type")).hasValueSatisfying(
                t -> assertThat(t).startsWith("text/plain; version=0.0.4"));
        assertThat(get(port, "/nope").statusCode()).isEqualTo(404);

        kafka.stop();
        try {
            // Readiness may turn red from the source's own health before the next Kafka probe ran: wait for both.
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                HttpResponse<String> ready = get(port, "/health/ready");
                assertThat(ready.statusCode()).isEqualTo(503);
                assertThat(ready.body()).contains("\"status\":\"not ready\"", "\"kafka\":\"unreachable");
            });
            assertThat(get(port, "/health/live").statusCode()).isEqualTo(200);
            assertThat(get(port, "/metrics").body()).contains("outbox_relay_ready{relay=\"metrics-test\"} 0.0");
        } finally {
            kafka.restart();
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> get(port, "/health/ready").statusCode() == 200);

        assertThat(daemon.stop()).isTrue();
        assertThat(daemon.state()).isEqualTo(DaemonState.STOPPED);
    }

    private RelayDaemon startDaemon(TestKafka kafka) throws Exception {
        SourceFactory poll = new PollSourceFactory();
        ConfigSpec spec = ConfigSpec.of(DatabaseOptions.CONNECTION, KafkaOptions.SET, PollOptions.SET);
        RelayConfig config = spec.resolve(ConfigSources.builder()
                .flag("db-url", database.jdbcUrl()).flag("db-user", database.relayUser())
                .environment(Map.of("RELAY_DB_PASSWORD", database.relayPassword()))
                .flag("kafka-bootstrap", kafka.bootstrapServers())
                .flag("topic-template", "daemon-it.${aggregateType}")
                .flag("poll-interval", "100ms").flag("relay-name", "metrics-test").build());
        RelayDaemon d = RelayDaemon.create(new DaemonSettings("poll", "metrics-test", OutboxTable.DEFAULT,
                poll.coordination(), poll.inspector(config), poll.gauges(), "127.0.0.1", freePort(), Duration.ofSeconds(30), Duration.ofMillis(300), Duration.ofSeconds(1),
                ConnectionFactory.fromConfig(config), KafkaOptions.producerSettings(config).producerProperties()),
                (RelayListener listener) -> (OutboxSource) poll.create(config, listener));
        d.start();
        return d;
    }

    private static int freePort() {
        return dev.outboxrelay.testkit.TestPorts.reserve();
    }

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
    }
}
