package dev.outboxrelay.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter.Row;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.stream.Collectors;

/** What {@link RelayContract}'s tests check, on one test's database, writer and reader. */
final class ContractChecks {

    private final TestDatabase database;
    private final OutboxWriter writer;
    private final TopicReader reader;
    private final Duration wait;

    ContractChecks(TestDatabase database, OutboxWriter writer, TopicReader reader, Duration wait) {
        this.database = database;
        this.writer = writer;
        this.reader = reader;
        this.wait = wait;
    }

    ReadRecord only(String topic, UUID id) {
        List<ReadRecord> records = reader.readUntilIds(topic, Set.of(id.toString()), wait);
        List<ReadRecord> matching = records.stream().filter(r -> id.toString().equals(r.id())).toList();
        assertThat(matching).as("records with id %s on %s", id, topic).isNotEmpty();
        return matching.get(0);
    }

    void assertDelivered(String topic, List<String> expectedInPerKeyOrder) {
        List<ReadRecord> records = reader.readUntilIds(topic, new HashSet<>(expectedInPerKeyOrder), wait);
        DeliveryReport report = DeliveryReport.of(records, expectedInPerKeyOrder);
        assertThat(report.nothingLost()).as("nothing lost: %s", report).isTrue();
        assertThat(report.inPerKeyOrder()).as("per-key order: %s", report).isTrue();
    }

    void awaitNothingUnsent() {
        await().atMost(wait).until(() -> writer.unsent() == 0);
    }

    void awaitDeadLettered(UUID id, String reasonPart, int attempts) {
        await().atMost(wait).until(() -> database.queryLong(
                "SELECT count(*) FROM outbox WHERE dead_lettered_at IS NOT NULL AND id = '" + id + "'") == 1);
        assertThat(database.queryString("SELECT last_error FROM outbox WHERE id = '" + id + "'")).contains(reasonPart);
        assertThat(database.queryLong("SELECT attempts FROM outbox WHERE id = '" + id + "'")).isEqualTo(attempts);
        assertThat(database.queryString("SELECT sent_at::text FROM outbox WHERE id = '" + id + "'")).isNull();
    }

    /**
     * Other keys flow, the poisoned key's earlier event is out, its later event waits unsent ({@code --on-poison
     * block}, the default in every mode).
     */
    void assertLaterEventsOfKeyWait(String topic, String type, Row before, Row after, List<String> others) {
        List<String> expected = new ArrayList<>(others);
        expected.add(before.id().toString());
        // Written after the dead letter: once these are out, the relay has had every chance to send `after`.
        expected.addAll(writer.insert(List.of(Row.of(type, "late-1", 1), Row.of(type, "late-2", 1))));
        assertDelivered(topic, expected);
        assertThat(ids(reader.readAll(topic))).as("later event of the dead-lettered key waits")
                .doesNotContain(after.id().toString());
        assertThat(database.queryString("SELECT coalesce(sent_at::text, 'unsent') FROM outbox WHERE id = '"
                + after.id() + "'")).isEqualTo("unsent");
    }

    static Set<String> ids(List<ReadRecord> records) {
        return records.stream().map(ReadRecord::id).filter(java.util.Objects::nonNull).collect(Collectors.toSet());
    }

    /** Random hex: lz4 cannot shrink it below the topic limit. */
    static String incompressible(int length) {
        StringBuilder s = new StringBuilder(length);
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (s.length() < length) {
            s.append(Long.toHexString(random.nextLong()));
        }
        return s.substring(0, length);
    }

    List<String> queryStrings(String sql) throws java.sql.SQLException {
        List<String> values = new ArrayList<>();
        try (Connection c = database.connect(); java.sql.Statement st = c.createStatement();
             java.sql.ResultSet rs = st.executeQuery(sql)) {
            while (rs.next()) {
                values.add(rs.getString(1));
            }
        }
        return values;
    }
}
