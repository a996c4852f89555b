package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.SourceFactory;
import dev.outboxrelay.core.config.ConfigSources;
import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.testkit.Pacing;
import dev.outboxrelay.testkit.PostgresDatabaseExtension;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TopicReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** {@code verify} against a real relayed run: the test kit's PostgreSQL and Kafka, the poll source. */
class VerifyCommandIT {

    @RegisterExtension
    final PostgresDatabaseExtension postgres = new PostgresDatabaseExtension();

    private final TestKafka kafka = TestKafka.shared();
    private final String aggregateType = "v" + UUID.randomUUID().toString().substring(0, 8);
    private final String topic = "verify." + aggregateType;
    private TestDatabase db;

    @BeforeEach
    void setUp() {
        db = postgres.database();
        assertThat(CliRun.of(Map.of("RELAY_DB_PASSWORD", db.relayPassword()), "migrate", "--db-url", db.jdbcUrl(),
                "--db-user", db.relayUser()).exitCode()).isZero();
        kafka.createTopic(topic, 3);
    }

    @Test
    void healthyRunReportsNothingLostThenCountsDuplicates() throws Exception {
        insert(300, 10, null);
        insert(1, 1, "{\"id\": \"spoofed\"}"); // a reserved header: the relay dead-letters the row
        relayEverything();
        insert(2, 2, null); // written after the relay stopped: unsent, not lost

        CliRun healthy = verify();
        assertThat(healthy.exitCode()).as(healthy.toString()).isZero();
        assertThat(healthy.out()).contains("303 rows created since", "(300 sent, 2 unsent, 1 dead letters)",
                "topic " + topic + ": 300 records read", "lost: 0\n", "duplicates: 0 records of 0 event ids\n",
                "per-key order: ok\n", "unsent: 2 (oldest created ", "dead letters: 1\n",
                "verdict: OK (nothing lost, per-key order held)");

        List<ReadRecord> first = new TopicReader(kafka.bootstrapServers()).read(topic, 300, Duration.ofSeconds(30))
                .subList(0, 2);
        redeliver(first);
        CliRun duplicated = verify();
        assertThat(duplicated.exitCode()).as(duplicated.toString()).isZero();
        assertThat(duplicated.out()).contains("duplicates: 2 records of 2 event ids\n",
                "  duplicate " + first.get(0).id() + " seen 2 times", "  duplicate " + first.get(1).id()
                        + " seen 2 times", "per-key order: ok\n");

        // Read as an exactly-once consumer, a duplicate means exactly-once did not hold.
        CliRun exactlyOnce = verify("--isolation", "read_committed");
        assertThat(exactlyOnce.exitCode()).as(exactlyOnce.toString()).isEqualTo(1);
        assertThat(exactlyOnce.out()).contains("duplicates: 2 records of 2 event ids\n", "verdict: FAILED (duplicates"
                + " read_committed: exactly-once delivery did not hold)");

        CliRun json = verify("--json");
        JsonNode report = new ObjectMapper().readTree(json.out());
        assertThat(report.get("ok").asBoolean()).isTrue();
        assertThat(report.get("isolation").asText()).isEqualTo("read_uncommitted");
        assertThat(report.get("duplicateRecords").asLong()).isEqualTo(2);
        assertThat(report.get("lost")).isEmpty();
        assertThat(report.get("deadLetters").get(0).get("lastError").asText()).isNotBlank();
    }

    @Test
    void recordsGoneFromTheTopicAreNamedAsLost() throws Exception {
        List<String> ids = insert(40, 5, null);
        relayEverything();
        recreateTopic();

        CliRun run = verify();
        assertThat(run.exitCode()).as(run.toString()).isEqualTo(1);
        assertThat(run.out()).contains("lost: 40 (sent, but not on the topic)", "verdict: FAILED");
        for (String id : ids) {
            assertThat(run.out()).contains("  lost " + id + " (" + aggregateType + "/");
        }
    }

    @Test
    void anExactlyOnceRelaysTopicReadCommittedIsOkWithEveryEventOnce() throws Exception {
        insert(50, 5, null);
        relayEverything();
        CliRun run = verify("--isolation", "read_committed");
        assertThat(run.exitCode()).as(run.toString()).isZero();
        assertThat(run.out()).contains("duplicates: 0 records of 0 event ids\n", "verdict: OK (nothing lost, per-key"
                + " order held, each event exactly once for read_committed consumers)");
        CliRun bad = verify("--isolation", "snapshot");
        assertThat(bad.exitCode()).isEqualTo(2);
        assertThat(bad.err()).startsWith("error: --isolation: expected one of read_committed, read_uncommitted, was"
                + " 'snapshot'");
    }

    @Test
    void badSinceIsAUsageError() {
        CliRun run = CliRun.of("verify", "--db-url", db.jdbcUrl(), "--db-user", "relay", "--kafka-bootstrap",
                "localhost:9092", "--since", "soon");
        assertThat(run.exitCode()).isEqualTo(2);
        assertThat(run.err()).startsWith("error: --since: ");
    }

    private CliRun verify(String... extra) {
        List<String> args = new ArrayList<>(List.of("verify", "--db-url", db.jdbcUrl(), "--db-user",
                db.relayUser(), "--kafka-bootstrap", kafka.bootstrapServers(), "--topic-template",
                "verify.${aggregateType}", "--since", "1h"));
        args.addAll(List.of(extra));
        return CliRun.of(Map.of("RELAY_DB_PASSWORD", db.relayPassword()), args.toArray(String[]::new));
    }

    /** Rows over {@code keys} aggregates, ten per transaction; returns the ids in write order. */
    private List<String> insert(int count, int keys, String headers) throws Exception {
        List<String> ids = new ArrayList<>();
        try (Connection c = db.connect(); PreparedStatement ps = c.prepareStatement("INSERT INTO public.outbox"
                + " (id, aggregate_type, aggregate_id, event_type, payload, headers)"
                + " VALUES (?, ?, ?, 'Happened', '{}', ?::jsonb)")) {
            c.setAutoCommit(false);
            for (int i = 0; i < count; i++) {
                UUID id = UUID.randomUUID();
                ps.setObject(1, id);
                ps.setString(2, aggregateType);
                ps.setString(3, (headers == null ? "key-" : "poison-") + i % keys);
                ps.setString(4, headers);
                ps.executeUpdate();
                ids.add(id.toString());
                if (i % 10 == 9) {
                    c.commit();
                }
            }
            c.commit();
        }
        return ids;
    }

    /** Runs the poll source, as {@code run --mode poll} would, until no row waits any more. */
    private void relayEverything() throws InterruptedException {
        SourceFactory poll = Main.sourceFactories().get("poll");
        OutboxSource source = poll.create(ConfigSpec.of(DatabaseOptions.CONNECTION, KafkaOptions.SET, poll.options())
                .resolve(ConfigSources.builder()
                        .environment(Map.of("RELAY_DB_PASSWORD", db.relayPassword()))
                        .flag("db-url", db.jdbcUrl()).flag("db-user", db.relayUser())
                        .flag("kafka-bootstrap", kafka.bootstrapServers())
                        .flag("topic-template", "verify.${aggregateType}").flag("max-attempts", "1")
                        .build()), RelayListener.none());
        try {
            source.start();
            org.awaitility.Awaitility.await("relayed within 60 s").atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(100)).until(() -> db.queryLong("SELECT count(*)"
                            + " FROM public.outbox WHERE sent_at IS NULL AND dead_lettered_at IS NULL") == 0);
        } finally {
            source.close();
        }
    }

    /** Publishes copies of records, as a relay restart replaying a batch would. */
    private void redeliver(List<ReadRecord> records) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers(),
                ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class,
                ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class))) {
            for (ReadRecord r : records) {
                ProducerRecord<byte[], byte[]> copy = new ProducerRecord<>(r.topic(), r.partition(),
                        r.key().getBytes(), r.value().getBytes());
                r.rawHeaders().forEach(h -> copy.headers().add(h.name(), h.value()));
                producer.send(copy).get(30, TimeUnit.SECONDS);
            }
        }
    }

    /** Deletes and recreates the topic: every record is gone, as after a retention or cluster accident. */
    private void recreateTopic() throws Exception {
        kafka.admin().deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                kafka.createTopic(topic, 3);
                return;
            } catch (IllegalStateException e) {
                if (!(e.getCause() != null && e.getCause().getCause() instanceof TopicExistsException)
                        || System.nanoTime() > deadline) {
                    throw e;
                }
                Pacing.pause(200); // the deletion is still under way: create again
            }
        }
    }
}
