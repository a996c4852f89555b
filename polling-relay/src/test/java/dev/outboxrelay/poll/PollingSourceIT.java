package dev.outboxrelay.poll;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.acknowledge.RetentionPurger;
import dev.outboxrelay.testkit.CapturedLogs;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.Throughout;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import dev.outboxrelay.testkit.contract.Workload;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Poll-specific behaviour beyond the contract: coordination, outages, purge. */
class PollingSourceIT {

    private static final String TABLE = "public.outbox";
    private static final Duration WAIT = Duration.ofSeconds(60);

    private final List<PollingSource> sources = new ArrayList<>();
    private TestDatabase database;
    private TestKafka kafka;
    private OutboxWriter writer;
    private TopicReader reader;
    private String prefix;

    @BeforeEach
    void setUp() throws Exception {
        database = TestPostgres.shared().createDatabase("poll");
        PollingRelays.migrate(database, TABLE);
        kafka = TestKafka.shared();
        writer = new OutboxWriter(database, TABLE);
        reader = TopicReader.of(kafka);
        prefix = "poll-" + UUID.randomUUID().toString().substring(0, 8);
    }

    @AfterEach
    void tearDown() {
        sources.forEach(PollingSource::close);
        if (!kafka.isRunning()) {
            kafka.restart();
        }
        database.drop();
    }

    private PollingSource start(PollSettings.Builder settings, Map<String, String> producer, RelayListener listener) {
        Map<String, String> options = Map.of("topic-template", prefix + ".${aggregateType}");
        PollingSource s = PollingRelays.start(settings.build(), database, kafka.bootstrapServers(), options, producer,
                listener);
        sources.add(s);
        return s;
    }

    private PollingSource start() {
        return start(PollingRelays.settings(TABLE, Map.of()), Map.of(), RelayListener.none());
    }

    private void assertDelivered(String topic, List<String> expected) {
        List<ReadRecord> records = reader.readUntilIds(topic, new HashSet<>(expected), WAIT);
        DeliveryReport report = DeliveryReport.of(records, expected);
        assertThat(report.atLeastOnceInOrder()).as("%s", report).isTrue();
    }

    @Test
    void onlyOneInstancePollsAndAStandbyTakesOverWhenTheLockSessionDies() throws Exception {
        // Two relays on one table are two processes, whose pids make their instance names differ. Under one name in
        // one JVM each would end the other's lock session as a stale one of its own (AdvisoryLocks.endOwnStaleHolders)
        // and both would be active for a moment, again and again.
        PollingSource a = start(PollingRelays.settings(TABLE, Map.of()).relayName("poll-test-a"), Map.of(),
                RelayListener.none());
        PollingSource b = start(PollingRelays.settings(TABLE, Map.of()).relayName("poll-test-b"), Map.of(),
                RelayListener.none());
        await().atMost(WAIT).until(() -> a.isActive() || b.isActive());
        Throughout.holds("never two active pollers", Duration.ofMillis(500), () -> !(a.isActive() && b.isActive()));
        Workload load = Workload.start(writer, "Failover", 10, 300, 2, 1);
        reader.read(prefix + ".Failover", 500, WAIT);
        // Kill the active poller's session from the server side: its lock is gone, the standby must take over.
        database.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'poll-test-_@%'"
                + " AND pid IN (SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted)");
        assertDelivered(prefix + ".Failover", load.join());
        await().atMost(WAIT).until(() -> database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL") == 0);
        // The instance whose session was killed notices at its next read of that session (it cannot fetch or mark on
        // it meanwhile); on a fast run everything was delivered before then, so this is awaited, not asserted at once.
        await().atMost(WAIT).until(() -> a.isActive() != b.isActive());
    }

    @Test
    void kafkaOutageLongerThanTheDeliveryTimeoutCostsNoAttempts() throws Exception {
        AtomicInteger outages = new AtomicInteger();
        AtomicInteger recoveries = new AtomicInteger();
        RelayListener listener = new RelayListener() {
            @Override
            public void outage(String what, Throwable cause) {
                outages.incrementAndGet();
            }

            @Override
            public void recovered() {
                recoveries.incrementAndGet();
            }
        };
        PollingSource source = start(PollingRelays.settings(TABLE, Map.of("max-attempts", "1")),
                Map.of("delivery.timeout.ms", "1500", "request.timeout.ms", "1000", "max.block.ms", "1000"), listener);
        List<String> first = writer.insert(List.of(OutboxWriter.Row.of("Down", "k", 1)));
        assertDelivered(prefix + ".Down", first);
        kafka.stop();
        List<String> during = new ArrayList<>(first);
        for (int i = 2; i < 50; i++) {
            during.addAll(writer.insert(List.of(OutboxWriter.Row.of("Down", "k", i))));
        }
        await().atMost(WAIT).until(() -> outages.get() > 0 && !source.isHealthy());
        // Several delivery timeouts pass while the broker is gone: an outage is not the rows' fault.
        Throughout.holds("no attempt charged", Duration.ofSeconds(4), () -> database.queryLong(
                "SELECT count(*) FROM outbox WHERE attempts > 0 OR dead_lettered_at IS NOT NULL") == 0);
        kafka.restart();
        // Nothing lost, and per-key order also for an outage longer than delivery.timeout.ms (1.5 s here): what the
        // producer gave up on is sent again before anything later of its key (docs/poll-mode.md).
        List<ReadRecord> records = reader.readUntilIds(prefix + ".Down", new HashSet<>(during), WAIT);
        DeliveryReport report = DeliveryReport.of(records, during);
        assertThat(report.atLeastOnceInOrder()).as("%s", report).isTrue();
        await().atMost(WAIT).until(() -> recoveries.get() > 0 && source.isHealthy());
        await().atMost(WAIT).until(() -> database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL") == 0);
    }

    @Test
    void aLateCommitIsPublishedInKeyOrderWhileNewerRowsKeepFlowing() throws Exception {
        start(PollingRelays.settings(TABLE, Map.of()).pollInterval(Duration.ofSeconds(2)), Map.of(),
                RelayListener.none());
        try (Connection late = database.connect()) {
            late.setAutoCommit(false);
            List<String> lateIds = writer.insert(late, List.of(OutboxWriter.Row.of("Late", "late-key", 1)));
            // Thousands of newer rows are published and marked meanwhile, far above the late row's seq.
            List<String> all = new ArrayList<>(Workload.start(writer, "Late", 10, 300, 2, 0).join());
            assertDelivered(prefix + ".Late", all);
            late.commit();
            all.addAll(lateIds);
            // The key's next event commits right after: it must not overtake the late one (a seq floor did).
            all.addAll(writer.insert(List.of(OutboxWriter.Row.of("Late", "late-key", 2))));
            assertDelivered(prefix + ".Late", all);
        }
        await().atMost(WAIT).until(() -> database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL") == 0);
    }

    @Test
    void databaseConnectionLossIsSurvived() throws Exception {
        start();
        Workload load = Workload.start(writer, "DbLoss", 10, 300, 2, 1);
        reader.read(prefix + ".DbLoss", 300, WAIT);
        database.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name LIKE 'poll-test@%'");
        assertDelivered(prefix + ".DbLoss", load.join());
        await().atMost(WAIT).until(() -> database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL") == 0);
    }

    @Test
    void sentRowsArePurgedAfterTheRetentionInBoundedBatches() throws Exception {
        start(PollingRelays.settings(TABLE, Map.of()).retention(Duration.ofMillis(1))
                .purgeInterval(Duration.ofMillis(300)).purgeBatchSize(7), Map.of(), RelayListener.none());
        List<String> ids = Workload.write(writer, "Purge", 5, 20, 1, 0);
        assertDelivered(prefix + ".Purge", ids);
        await().atMost(WAIT).until(() -> database.queryLong("SELECT count(*) FROM outbox") == 0);
    }

    @Test
    void aRoleThatMayNotDeleteRelaysAndSaysOnceWhyNothingIsPurgedUntilGranted() throws Exception {
        database.execute("REVOKE DELETE ON outbox FROM " + database.relayUser());
        try (CapturedLogs logs = CapturedLogs.of(RetentionPurger.class)) {
            start(PollingRelays.settings(TABLE, Map.of()).retention(Duration.ofMillis(1))
                    .purgeInterval(Duration.ofMillis(200)), Map.of(), RelayListener.none());
            List<String> ids = Workload.write(writer, "NoDelete", 5, 20, 1, 0);
            assertDelivered(prefix + ".NoDelete", ids);
            await().atMost(WAIT).until(() -> !logs.messages(Level.WARN).isEmpty());
            Throughout.holds("one WARN over a few more purge rounds", Duration.ofMillis(600),
                    () -> logs.messages(Level.WARN).size() == 1);
            assertThat(logs.messages(Level.WARN)).singleElement().asString()
                    .contains("are not purged: role '" + database.relayUser() + "' lacks DELETE",
                            "GRANT DELETE ON \"public\".\"outbox\"");
            assertThat(database.queryLong("SELECT count(*) FROM outbox")).isEqualTo(ids.size());

            database.execute("GRANT DELETE ON outbox TO " + database.relayUser());
            await().atMost(WAIT).until(() -> database.queryLong("SELECT count(*) FROM outbox") == 0);
        }
    }

    @Test
    void deadLetteredRowsAreNotPurgedAndGoToTheDeadLetterTopic() throws Exception {
        String dlt = prefix + "-dead";
        start(PollingRelays.settings(TABLE, Map.of("max-attempts", "1")).deadLetterTopic(dlt)
                .retention(Duration.ofMillis(1)).purgeInterval(Duration.ofMillis(300)), Map.of(), RelayListener.none());
        UUID poison = UUID.randomUUID();
        writer.insert(List.of(new OutboxWriter.Row(poison, "Dead", "d", "Happened", "{\"n\": 1}", "\"text\"")));
        List<ReadRecord> dead = reader.readUntilIds(dlt, java.util.Set.of(poison.toString()), WAIT);
        assertThat(dead).anySatisfy(r -> {
            assertThat(r.id()).isEqualTo(poison.toString());
            assertThat(r.key()).isEqualTo("d");
            assertThat(r.headers().get("dead_letter_reason")).contains("must be a JSON object");
        });
        // Marked dead once Kafka acknowledged the dead-letter record: it may be on the topic a moment before.
        await().atMost(WAIT).until(() -> database.queryLong(
                "SELECT count(*) FROM outbox WHERE dead_lettered_at IS NOT NULL") == 1);
        Throughout.holds("the dead letter stays in the table through the purge rounds", Duration.ofSeconds(1),
                () -> database.queryLong("SELECT count(*) FROM outbox WHERE dead_lettered_at IS NOT NULL") == 1);
    }
}
