package dev.outboxrelay.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import dev.outboxrelay.testkit.CapturedLogs;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.KafkaAcls;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter.Row;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The topic's failure class, the same for every source: on a broker that does not create topics on first use
 * (the usual production setting), events routed to a topic that does not exist wait with their keys, no attempt
 * counted, while every other key and topic flows; once the topic is created they go out by themselves, in
 * per-key order, without a restart. The same for a topic the relay is no longer authorized to write (a broker
 * with SASL and the {@code StandardAuthorizer}): only that topic's keys wait, nothing is charged or
 * dead-lettered, and they flow again once the ACL is back. A source module subclasses this once, like
 * {@link RelayContract}; each test runs a dedicated broker with {@code auto.create.topics.enable=false}.
 */
public abstract class TopicFailureContract {

    private static final Duration WAIT = Duration.ofSeconds(60);
    /** How long a topic's ACL stays revoked (the acceptance run: {@code -Dacl.revoked.seconds=30}). */
    private static final int ACL_REVOKED_SECONDS = Integer.getInteger("acl.revoked.seconds", 10);
    /** Where the relay's topic lookups log (relay-core {@code TopicLimits}); the test kit does not see the class. */
    private static final String TOPIC_LIMITS_LOGGER = "dev.outboxrelay.core.delivery.TopicLimits";

    private TestKafka kafka;
    private TestDatabase database;
    private RelayHandle relay;
    private CapturedLogs logs;

    /** The source under test, as in {@link RelayContract#source()}. */
    protected abstract ContractSource source();

    @BeforeEach
    final void createDatabase() throws Exception {
        database = TestPostgres.shared().createDatabase("topicfail");
        source().schema().migrate(database, RelayContract.TABLE);
        logs = CapturedLogs.named(TOPIC_LIMITS_LOGGER);
    }

    @AfterEach
    final void stopEverything() {
        logs.close();
        if (relay != null) {
            relay.close();
        }
        if (kafka != null) {
            kafka.close();
        }
        database.drop();
    }

    @Test
    final void eventsForAMissingTopicWaitWithTheirKeysWhileOtherTopicsFlowAndFollowOnceItIsCreated()
            throws Exception {
        kafka = TestKafka.start(Map.of("auto.create.topics.enable", "false"));
        kafka.createTopic("tf.Present", 1);
        OutboxWriter writer = new OutboxWriter(database, RelayContract.TABLE);
        List<String> missing = new ArrayList<>(writer.insert(List.of(Row.of("Missing", "m", 1))));
        List<String> present = new ArrayList<>(writer.insert(List.of(Row.of("Present", "p", 1))));
        missing.addAll(writer.insert(List.of(Row.of("Missing", "m", 2))));
        present.addAll(writer.insert(List.of(Row.of("Present", "p", 2))));
        relay = source().start(new RelayEnvironment(database, RelayContract.TABLE, kafka),
                Map.of(RelayContract.TOPIC_TEMPLATE, "tf.${aggregateType}"));

        assertInOrder("tf.Present", present);
        // The stream goes on past the waiting events: later events of other topics still arrive.
        missing.addAll(writer.insert(List.of(Row.of("Missing", "m", 3))));
        present.addAll(writer.insert(List.of(Row.of("Present", "p", 3), Row.of("Present", "q", 1))));
        assertInOrder("tf.Present", present);
        assertThat(database.queryLong("SELECT count(*) FROM outbox WHERE aggregate_type = 'Missing'"
                + " AND sent_at IS NULL AND attempts = 0 AND dead_lettered_at IS NULL"))
                .as("waiting, no attempt counted").isEqualTo(3);
        assertThat(logs.messages(Level.WARN)).containsExactly("Topic tf.Missing does not exist and"
                        + " the cluster does not create topics on first use: events routed to it wait, and hold back"
                        + " later events of their keys, until it is created");

        kafka.createTopic("tf.Missing", 1);
        assertInOrder("tf.Missing", missing);
        await().atMost(WAIT).until(() -> writer.unsent() == 0);
    }

    @Test
    final void aTopicWhoseAclIsRevokedHoldsOnlyItsKeysChargesNothingAndFlowsAgainOnceGranted() throws Exception {
        kafka = TestKafka.startWithAuthorizer(Map.of("auto.create.topics.enable", "false"));
        KafkaAcls acls = KafkaAcls.of(kafka);
        kafka.createTopic("acl.Open", 1);
        kafka.createTopic("acl.Revoked", 1);
        acls.grantProducer(TestKafka.USER, "acl.Open");
        acls.grantProducer(TestKafka.USER, "acl.Revoked");
        Map<String, String> flags = new java.util.HashMap<>(Map.of(RelayContract.TOPIC_TEMPLATE, "acl.${aggregateType}",
                RelayContract.MAX_ATTEMPTS, "2"));
        TestKafka.clientSecurity(TestKafka.USER, TestKafka.USER_PASSWORD).forEach((k, v) -> flags.put("kafka." + k, v));
        relay = source().start(new RelayEnvironment(database, RelayContract.TABLE, kafka), flags);
        OutboxWriter writer = new OutboxWriter(database, RelayContract.TABLE);
        List<String> open = new ArrayList<>(writer.insert(List.of(Row.of("Open", "o", 1))));
        List<String> revoked = new ArrayList<>(writer.insert(List.of(Row.of("Revoked", "r", 1))));
        assertInOrder("acl.Open", open);
        assertInOrder("acl.Revoked", revoked);

        acls.revokeProducer(TestKafka.USER, "acl.Revoked");
        long revokedAt = System.nanoTime();
        revoked.addAll(writer.insert(List.of(Row.of("Revoked", "r", 2))));
        open.addAll(writer.insert(List.of(Row.of("Open", "o", 2))));
        revoked.addAll(writer.insert(List.of(Row.of("Revoked", "r", 3))));
        open.addAll(writer.insert(List.of(Row.of("Open", "o", 3), Row.of("Open", "p", 1))));
        assertInOrder("acl.Open", open);
        // Held for a while (far longer than two attempts' backoff would take) while both topics keep getting events:
        // the open topic's arrive meanwhile, nothing is charged or dead-lettered.
        int n = 4;
        while (System.nanoTime() - revokedAt < java.util.concurrent.TimeUnit.SECONDS.toNanos(ACL_REVOKED_SECONDS)) {
            revoked.addAll(writer.insert(List.of(Row.of("Revoked", "r", n))));
            open.addAll(writer.insert(List.of(Row.of("Open", "o", n))));
            n++;
            dev.outboxrelay.testkit.Pacing.pause(1000); // one row per topic per second while the ACL is gone
        }
        assertInOrder("acl.Open", open);
        assertThat(database.queryLong("SELECT count(*) FROM outbox WHERE aggregate_type = 'Revoked'"
                + " AND sent_at IS NULL AND attempts = 0 AND dead_lettered_at IS NULL"))
                .as("waiting for the ACL, no attempt counted").isEqualTo(revoked.size() - 1);

        acls.grantProducer(TestKafka.USER, "acl.Revoked");
        assertInOrder("acl.Revoked", revoked);
        await().atMost(WAIT).until(() -> writer.unsent() == 0);
        assertThat(database.queryLong("SELECT count(*) FROM outbox WHERE attempts > 0 OR dead_lettered_at IS NOT NULL"))
                .as("the revoked ACL was the topic's fault, not the rows'").isZero();
    }

    private void assertInOrder(String topic, List<String> expected) {
        DeliveryReport report = DeliveryReport.of(TopicReader.of(kafka).readUntilIds(topic, new HashSet<>(expected),
                WAIT), expected);
        assertThat(report.atLeastOnceInOrder()).as("%s", report).isTrue();
    }
}
