package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ItLogs;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A key held for a retry keeps its hold across a takeover, with the shipped jar: instance A's records of one key
 * fail through the row's fault (its topic is compacted and A's producer strips their key:
 * {@link KeyStrippingInterceptor}) until the key's backoff is several seconds long; A is killed with SIGKILL just
 * after a failed attempt, and standby B, whose records are fine, takes over. B publishes nothing of that key
 * before the hold A wrote to the table ends, then every event of it exactly once and in order; the other keys
 * flow throughout.
 */
class RetryHoldTakeoverIT {

    private static final String HELD = "p-held";

    @ParameterizedTest(name = "--mode {0}")
    @ValueSource(strings = {"poll", "cdc"})
    void aKeyHeldForARetryIsNotPublishedBeforeItsBackoffEndsNorTwiceAfterATakeover(String mode) throws Exception {
        String name = "retry-hold-" + mode;
        PublishingRelay started = null;
        RelayProcess standby = null;
        try (TestKafka kafka = TestKafka.start()) {
            kafka.createTopic(name + ".Order", 3);
            kafka.createTopic(name + ".Poison", 1, Map.of("cleanup.policy", "compact"));
            started = PublishingRelay.of(name + "-a", mode).kafka(kafka).withTestClasses()
                    .jvm(List.of("-D" + KeyStrippingInterceptor.SUFFIX + "=.Poison"))
                    .args("--topic-template", name + ".${aggregateType}", "--relay-name", name, "--max-attempts",
                            "100", "--standby-interval", "200ms",
                            "--kafka.interceptor.classes=" + KeyStrippingInterceptor.class.getName()).start();
            RelayProcess a = started.relay;
            TestDatabase db = started.database;
            Files.deleteIfExists(ItLogs.file(name + "-b"));
            RelayProcess b = RelayProcess.runWithTestClasses(List.of(), name + "-b", db, kafka, started.arguments());
            standby = b;
            await().atMost(Duration.ofSeconds(90)).until(() -> b.readiness().contains("\"role\":\"standby\""));

            OutboxWriter writer = new OutboxWriter(db, "public.outbox");
            List<String> held = new ArrayList<>();
            List<String> others = new ArrayList<>();
            for (int n = 0; n < 5; n++) {
                held.addAll(writer.insert(List.of(OutboxWriter.Row.of("Poison", HELD, n))));
                others.addAll(writer.insert(List.of(OutboxWriter.Row.of("Order", "k-" + n, n))));
            }
            String head = "SELECT attempts FROM outbox WHERE aggregate_id = '" + HELD + "' ORDER BY seq LIMIT 1";
            // The 7th retry of a row backs off 5 to 10 s (200 ms doubling, capped, half of it jitter).
            await().atMost(Duration.ofSeconds(60)).until(() -> db.queryLong(head) >= 7);
            // A records a failed attempt, then (in a second transaction) the hold that follows it: A is killed once
            // the next attempt's hold is in the table, not merely its attempt, or the hold read is the expired one.
            String hold = "SELECT coalesce(max(retry_at), '-infinity')::text FROM outbox WHERE aggregate_id = '" + HELD
                    + "' AND sent_at IS NULL";
            long attempts = db.queryLong(head);
            String previousHold = db.queryString(hold);
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(20))
                    .until(() -> db.queryLong(head) > attempts && db.queryLong("SELECT count(*) FROM outbox"
                            + " WHERE aggregate_id = '" + HELD + "' AND sent_at IS NULL AND retry_at > '"
                            + previousHold + "'::timestamptz") > 0);
            a.kill();
            long attemptsAtKill = db.queryLong(head);
            String heldUntil = db.queryString(hold);
            assertThat(heldUntil).as("A wrote the key's hold to the table").isNotNull();
            assertThat(db.queryLong("SELECT (extract(epoch FROM '" + heldUntil + "'::timestamptz - now()) * 1000)"
                    + "::bigint")).as("the hold has seconds left").isGreaterThan(2000);

            b.awaitPublishing(Duration.ofSeconds(30));
            TopicReader reader = new TopicReader(kafka.bootstrapServers());
            while (db.queryLong("SELECT count(*) FROM (SELECT now() < '" + heldUntil + "'::timestamptz"
                    + " - interval '300 milliseconds' AS before) t WHERE before") == 1) {
                assertThat(reader.readAll(name + ".Poison")).as("nothing of the held key before its hold ends")
                        .isEmpty();
            }
            List<ReadRecord> records = reader.readUntilIds(name + ".Poison", new HashSet<>(held),
                    Duration.ofSeconds(60));
            DeliveryReport report = DeliveryReport.of(records, held);
            assertThat(report.exactlyOnce() && report.inPerKeyOrder()).as("%s", report).isTrue();
            assertThat(db.queryLong(head)).as("B never failed it: the hold was B's to wait out, not to retry")
                    .isEqualTo(attemptsAtKill);
            DeliveryReport rest = DeliveryReport.of(reader.readUntilIds(name + ".Order", new HashSet<>(others),
                    Duration.ofSeconds(60)), others);
            assertThat(rest.atLeastOnceInOrder()).as("%s", rest).isTrue();
            await().atMost(Duration.ofSeconds(30)).until(() -> writer.unsent() == 0);
            assertThat(b.logText()).contains("1 key(s) of public.outbox wait for a retry, as recorded in the table");
        } finally {
            if (standby != null) {
                standby.close();
            }
            if (started != null) {
                started.close();
            }
        }
    }
}
