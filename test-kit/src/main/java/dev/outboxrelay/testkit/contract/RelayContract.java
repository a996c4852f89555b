package dev.outboxrelay.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter.Row;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The behaviour every source (poll, CDC) must show, asserted on what a consumer reads from Kafka, on every supported
 * PostgreSQL version (a subclass per version; a broker outage, which does not depend on the database, is the
 * {@link BrokerOutageContract}'s and runs once). A source module subclasses this once and only names its
 * {@link ContractSource} (mode, schema, test flags); every
 * relay is started through that mode's {@code SourceFactory} from a real, validated configuration
 * ({@link FactoryRelays}), as {@code run} starts it. The tests are final. Rows are written with plain SQL on the
 * contract columns, exactly like an application would.
 *
 * <p>Options use the CLI's option names without dashes: {@value #TOPIC_TEMPLATE}, {@value #ON_PUBLISH}
 * ({@code mark|delete}), {@value #MAX_ATTEMPTS}, {@value #ON_POISON} ({@code block|skip}),
 * {@value #DEAD_LETTER_TOPIC}, {@value #RETENTION} and {@value #PURGE_INTERVAL} (durations such as
 * {@code 300ms}). Absent options mean the relay's defaults.
 *
 * <p>Failure reasons stored in {@code last_error} are API: the contract checks that a malformed-headers reason
 * says the headers {@code must be a JSON object}, and that a broker rejection names {@code RecordTooLarge}.
 */
public abstract class RelayContract {

    public static final String TOPIC_TEMPLATE = "topic-template";
    public static final String ON_PUBLISH = "on-publish";
    public static final String MAX_ATTEMPTS = "max-attempts";
    public static final String ON_POISON = "on-poison";
    public static final String DEAD_LETTER_TOPIC = "dead-letter-topic";
    public static final String RETENTION = "retention";
    public static final String PURGE_INTERVAL = "purge-interval";
    /** The outbox table every contract test uses. */
    public static final String TABLE = "public.outbox";

    private static final Duration WAIT = Duration.ofSeconds(60);

    private final List<RelayHandle> relays = new ArrayList<>();
    private TestDatabase database;
    private RelayEnvironment env;
    private OutboxWriter writer;
    private TopicReader reader;
    private String prefix;
    private ContractChecks checks;

    /** The source under test: its mode, schema and test flags. */
    protected abstract ContractSource source();

    /** Oldest PostgreSQL major version the relay supports (README, "Requirements"; the daemon's Probes). */
    public static final int OLDEST_SUPPORTED_POSTGRES = 14;

    /**
     * The PostgreSQL major version to run the suite on, from {@link TestPostgres#sharedOfMajor(int)}; 0 (the
     * default) means the installed server, {@link TestPostgres#shared()}. A subclass per version runs the same
     * suite on every supported version.
     */
    protected int postgresMajor() {
        return 0;
    }

    /**
     * The server to run the suite on; by default the shared one of {@link #postgresMajor()}. A subclass may pick
     * another, e.g. {@link TestPostgres#sharedTls()}, whose JDBC URL carries its TLS settings to the relay.
     */
    protected TestPostgres postgres() {
        return TestPostgres.sharedOfMajor(postgresMajor());
    }

    /**
     * Whether to run the suite on a partitioned outbox table: after {@link #migrate}, the table is replaced by
     * one partitioned by hash of {@code id} ({@link PartitionedOutbox}). Writers insert through the parent, as
     * applications do.
     */
    protected boolean partitionedOutbox() {
        return false;
    }

    @BeforeEach
    final void createDatabase() throws Exception {
        database = postgres().createDatabase("contract");
        source().schema().migrate(database, TABLE);
        if (partitionedOutbox()) {
            PartitionedOutbox.convert(database, TABLE, 4);
        }
        env = new RelayEnvironment(database, TABLE, TestKafka.shared());
        writer = new OutboxWriter(database, TABLE);
        reader = TopicReader.of(env.kafka());
        prefix = "contract-" + UUID.randomUUID().toString().substring(0, 8);
        checks = new ContractChecks(database, writer, reader, WAIT);
    }

    @AfterEach
    final void stopEverything() {
        for (int i = relays.size() - 1; i >= 0; i--) {
            relays.get(i).close();
        }
        relays.clear();
        if (!env.kafka().isRunning()) {
            env.kafka().restart();
        }
        database.drop();
    }

    @Test
    final void runsOnTheIntendedSupportedVersionAndTable() {
        int major = (int) (database.queryLong("SELECT current_setting('server_version_num')::int") / 10000);
        if (postgresMajor() != 0) {
            assertThat(major).isEqualTo(postgresMajor());
        }
        assertThat(major).isGreaterThanOrEqualTo(OLDEST_SUPPORTED_POSTGRES);
        assertThat(database.queryString("SELECT relkind::text FROM pg_class WHERE oid = '" + TABLE + "'::regclass"))
                .as("relkind of the outbox table").isEqualTo(partitionedOutbox() ? "p" : "r");
    }

    @Test
    final void publishesTheOutputContract() throws Exception {
        Row created = new Row(UUID.randomUUID(), "Order", "order-1", "Created", "{\"total\": 12.5, \"items\": [1, 2]}",
                "{\"traceparent\": \"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\", \"tenant\": \"acme\"}");
        Row deleted = new Row(UUID.randomUUID(), "Order", "order-1", "Deleted", null, null);
        writer.insert(List.of(created, deleted));
        String renderedPayload = database.queryString("SELECT payload::text FROM outbox WHERE id = '" + created.id() + "'");

        relay(Map.of(TOPIC_TEMPLATE, prefix + ".${aggregateType}.${eventType}"));

        ReadRecord c = checks.only(prefix + ".Order.Created", created.id());
        assertThat(c.key()).isEqualTo("order-1");
        assertThat(c.value()).isEqualTo(renderedPayload);
        assertThat(c.headers()).containsEntry("id", created.id().toString()).containsEntry("type", "Created")
                .containsEntry("aggregate_type", "Order")
                .containsEntry("traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
                .containsEntry("tenant", "acme");
        ReadRecord d = checks.only(prefix + ".Order.Deleted", deleted.id());
        assertThat(d.key()).isEqualTo("order-1");
        assertThat(d.isTombstone()).as("NULL payload is published as a tombstone").isTrue();
        assertThat(d.headers()).containsEntry("type", "Deleted").containsEntry("aggregate_type", "Order");
    }

    @Test
    final void defaultTopicIsOutboxEventDotAggregateType() throws Exception {
        String type = "Contract" + prefix.substring(prefix.length() - 8);
        Row row = Row.of(type, "k", 1);
        writer.insert(List.of(row));
        relay(Map.of());
        assertThat(checks.only("outbox.event." + type, row.id()).key()).isEqualTo("k");
    }

    @Test
    final void concurrentWritersArriveCompleteAndInPerKeyOrder() throws Exception {
        String topic = prefix + ".Stream";
        env.kafka().createTopic(topic, 3);
        relay(template());
        List<String> expected = Workload.write(writer, "Stream", 10, 1000, 4, 0);
        checks.assertDelivered(topic, expected);
        checks.awaitNothingUnsent();
    }

    @Test
    final void rowOfATransactionThatCommitsLastIsPublished() throws Exception {
        relay(template());
        try (Connection late = database.connect()) {
            late.setAutoCommit(false);
            // Inserted first, so it takes the lower seq; committed last.
            List<String> lateIds = writer.insert(late, List.of(Row.of("Late", "late-key", 1)));
            List<String> early = writer.insert(List.of(Row.of("Late", "a", 1), Row.of("Late", "b", 1),
                    Row.of("Late", "c", 1)));
            checks.assertDelivered(prefix + ".Late", early);
            late.commit();
            List<String> all = new ArrayList<>(early);
            all.addAll(lateIds);
            checks.assertDelivered(prefix + ".Late", all);
        }
        checks.awaitNothingUnsent();
    }

    @Test
    final void twoRelaysAtOnceLoseNothingAndKeepOrder() throws Exception {
        RelayHandle first = relay(template());
        relay(template());
        String topic = prefix + ".Pair";
        Workload load = Workload.start(writer, "Pair", 10, 300, 2, 1);
        reader.read(topic, 1000, WAIT);
        first.close(); // whichever was active, the other one carries on
        checks.assertDelivered(topic, load.join());
        checks.awaitNothingUnsent();
    }

    @Test
    final void malformedHeadersAreDeadLetteredAndBlockOnlyTheirKey() throws Exception {
        Row before = Row.of("Poison", "p", 1);
        Row poison = new Row(UUID.randomUUID(), "Poison", "p", "Happened", "{\"n\": 2}", "[\"not\", \"an\", \"object\"]");
        Row after = Row.of("Poison", "p", 3);
        writer.insert(List.of(before, poison, after));
        List<String> others = writer.insert(List.of(Row.of("Poison", "q", 1), Row.of("Poison", "r", 1)));
        relay(Map.of(TOPIC_TEMPLATE, prefix + ".${aggregateType}", MAX_ATTEMPTS, "2"));

        checks.awaitDeadLettered(poison.id(), "must be a JSON object", 2);
        checks.assertLaterEventsOfKeyWait(prefix + ".Poison", "Poison", before, after, others);
    }

    @Test
    final void aDeadLetterRetriedByAnOperatorGoesOutWithItsKeyInOrderWithoutARestart() throws Exception {
        Row before = Row.of("Retry", "p", 1);
        Row poison = new Row(UUID.randomUUID(), "Retry", "p", "Happened", "{\"n\": 2}", "[\"not an object\"]");
        Row after = Row.of("Retry", "p", 3);
        writer.insert(List.of(before, poison, after));
        relay(Map.of(TOPIC_TEMPLATE, prefix + ".${aggregateType}", MAX_ATTEMPTS, "1"));
        checks.awaitDeadLettered(poison.id(), "must be a JSON object", 1);
        List<String> waiting = writer.insert(List.of(Row.of("Retry", "p", 4)));
        List<String> others = writer.insert(List.of(Row.of("Retry", "q", 1)));
        checks.assertDelivered(prefix + ".Retry", List.of(before.id().toString(), others.get(0)));

        // What `dead-letters retry` does, after the application fixed the row.
        database.execute("UPDATE outbox SET headers = '{}', dead_lettered_at = NULL, attempts = 0 WHERE id = '"
                + poison.id() + "'");
        List<String> expected = new ArrayList<>(List.of(before.id().toString(), poison.id().toString(),
                after.id().toString()));
        expected.addAll(waiting);
        expected.addAll(others);
        checks.assertDelivered(prefix + ".Retry", expected);
        checks.awaitNothingUnsent();
    }

    @Test
    final void withSkipLaterEventsOfAPoisonedKeyFlowOn() throws Exception {
        Row poison = new Row(UUID.randomUUID(), "Skip", "p", "Happened", "{\"n\": 1}", "[1]");
        Row after = Row.of("Skip", "p", 2);
        writer.insert(List.of(poison, after));
        relay(Map.of(TOPIC_TEMPLATE, prefix + ".${aggregateType}", MAX_ATTEMPTS, "1", ON_POISON, "skip"));
        checks.assertDelivered(prefix + ".Skip", List.of(after.id().toString()));
        checks.awaitDeadLettered(poison.id(), "must be a JSON object", 1);
    }

    @Test
    final void recordTooLargeForTheTopicIsDeadLetteredAndBlocksOnlyItsKey() throws Exception {
        String topic = prefix + ".Big";
        env.kafka().createTopic(topic, 1, Map.of("max.message.bytes", "2048"));
        Row before = Row.of("Big", "big", 1);
        Row huge = new Row(UUID.randomUUID(), "Big", "big", "Happened", "{\"blob\": \"" + ContractChecks.incompressible(16_000) + "\"}", null);
        Row after = Row.of("Big", "big", 3);
        writer.insert(List.of(before, huge, after));
        List<String> others = writer.insert(List.of(Row.of("Big", "small-1", 1), Row.of("Big", "small-2", 1)));
        relay(Map.of(TOPIC_TEMPLATE, prefix + ".${aggregateType}", MAX_ATTEMPTS, "2"));

        checks.awaitDeadLettered(huge.id(), "RecordTooLarge", 2);
        checks.assertLaterEventsOfKeyWait(topic, "Big", before, after, others);
    }

    @Test
    final void rowsAreMarkedSentOnlyAfterTheyAreOnTheTopic() throws Exception {
        relay(template());
        String topic = prefix + ".Mark";
        Workload load = Workload.start(writer, "Mark", 10, 200, 2, 2);
        int rounds = 0;
        while (!load.isDone() || rounds < 3) {
            List<String> marked = checks.queryStrings("SELECT id::text FROM outbox WHERE sent_at IS NOT NULL");
            Set<String> onTopic = ContractChecks.ids(reader.readAll(topic));
            assertThat(onTopic).as("every row marked sent is already on the topic").containsAll(marked);
            rounds++;
        }
        checks.assertDelivered(topic, load.join());
        checks.awaitNothingUnsent();
    }

    @Test
    final void withOnPublishDeleteRowsAreDeletedOnlyAfterTheyAreOnTheTopic() throws Exception {
        relay(Map.of(TOPIC_TEMPLATE, prefix + ".${aggregateType}", ON_PUBLISH, "delete"));
        String topic = prefix + ".Delete";
        Workload load = Workload.start(writer, "Delete", 10, 200, 2, 2);
        int rounds = 0;
        while (!load.isDone() || rounds < 3) {
            Set<String> gone = new HashSet<>(load.committedSoFar());
            gone.removeAll(checks.queryStrings("SELECT id::text FROM outbox"));
            Set<String> onTopic = ContractChecks.ids(reader.readAll(topic));
            assertThat(onTopic).as("every deleted row is already on the topic").containsAll(gone);
            rounds++;
        }
        checks.assertDelivered(topic, load.join());
        await().atMost(WAIT).until(() -> database.queryLong("SELECT count(*) FROM outbox") == 0);
    }

    @Test
    final void anEventRoutedOutsideTheTopicAllowListIsDeadLetteredWithItsReason() throws Exception {
        String base = prefix + ".";
        Row allowed = Row.of("Allowed", "a", 1);
        Row elsewhere = Row.of("Elsewhere", "e", 1);
        Row intoTheDeadLetters = Row.of("Allowed-dead", "d", 1);
        writer.insert(List.of(allowed, elsewhere, intoTheDeadLetters));
        // The template lets the data pick the topic; the allow-list and the dead-letter topic bound that.
        relay(Map.of(TOPIC_TEMPLATE, base + "${aggregateType}", "topic-allow", Pattern.quote(base) + "Allowed.*",
                DEAD_LETTER_TOPIC, base + "Allowed-dead", MAX_ATTEMPTS, "1"));
        checks.assertDelivered(base + "Allowed", List.of(allowed.id().toString()));
        checks.awaitDeadLettered(elsewhere.id(), "outside --topic-allow", 1);
        checks.awaitDeadLettered(intoTheDeadLetters.id(), "dead-letter topic, which only the relay writes to", 1);
    }

    @Test
    final void aDeadLetterIsAlsoPublishedToTheDeadLetterTopicAndStaysInTheTable() throws Exception {
        String deadLetters = prefix + "-dead";
        Row poison = new Row(UUID.randomUUID(), "Dead", "d", "Happened", "{\"n\": 1}", "\"not an object\"");
        writer.insert(List.of(poison));
        relay(Map.of(TOPIC_TEMPLATE, prefix + ".${aggregateType}", MAX_ATTEMPTS, "1", DEAD_LETTER_TOPIC, deadLetters));
        List<ReadRecord> copies = reader.readUntilIds(deadLetters, Set.of(poison.id().toString()), WAIT);
        assertThat(copies).anySatisfy(r -> {
            assertThat(r.id()).isEqualTo(poison.id().toString());
            assertThat(r.key()).isEqualTo("d");
            assertThat(r.headers().get("type")).isEqualTo("Happened");
            assertThat(r.headers().get("dead_letter_reason")).contains("must be a JSON object");
        });
        checks.awaitDeadLettered(poison.id(), "must be a JSON object", 1);
    }

    @Test
    final void sentRowsArePurgedAfterTheRetentionButDeadLettersAndUnsentRowsStay() throws Exception {
        Row poison = new Row(UUID.randomUUID(), "Purge", "d", "Happened", "{\"n\": 1}", "\"not an object\"");
        writer.insert(List.of(poison));
        relay(Map.of(TOPIC_TEMPLATE, prefix + ".${aggregateType}", MAX_ATTEMPTS, "1", RETENTION, "1s",
                PURGE_INTERVAL, "1s"));
        List<String> ids = writer.insert(List.of(Row.of("Purge", "a", 1), Row.of("Purge", "b", 1)));
        checks.assertDelivered(prefix + ".Purge", ids);
        checks.awaitDeadLettered(poison.id(), "must be a JSON object", 1);
        await().atMost(WAIT).until(() -> database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL")
                == 0);
        assertThat(database.queryLong("SELECT count(*) FROM outbox")).as("the dead letter is kept").isEqualTo(1);
    }

    // ---------------------------------------------------------------------------------------------------------

    /** Starts a relay of the source under test with {@code options}; it is closed after the test. */
    protected final RelayHandle relay(Map<String, String> options) throws Exception {
        RelayHandle handle = source().start(env, options);
        relays.add(handle);
        return handle;
    }

    /** The test's database, created for each test. */
    protected final TestDatabase database() {
        return database;
    }

    private Map<String, String> template() {
        return Map.of(TOPIC_TEMPLATE, prefix + ".${aggregateType}");
    }
}
