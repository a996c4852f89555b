package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.format.MessageFormat;
import dev.outboxrelay.core.format.RouterSettings;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.schema.TableLayout;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A table laid out as Debezium's outbox expects ({@code id, aggregatetype, aggregateid, type, payload}), with rows
 * in it, adopted with the adoption plan and then relayed in both modes while applications write to it: the old rows
 * are not published, every new one is, in per-key order, tombstones included; in CDC mode also rows an application
 * inserts and deletes in one transaction (Debezium's usual pattern, which leaves the table empty).
 */
class DebeziumTableIT {

    private static final OutboxTable TABLE = OutboxTable.parse("public.outboxevent").withLayout(TableLayout.DEBEZIUM);
    private static final String PUBLICATION = "outboxevent_pub";

    private TestDatabase db;
    private TestKafka kafka;
    private String prefix;
    private final List<OutboxSource> running = new ArrayList<>();
    private final List<String> old = new ArrayList<>();

    @BeforeEach
    void setUp() throws Exception {
        db = TestPostgres.shared().createDatabase("dbztable");
        db.execute("CREATE TABLE public.outboxevent (id uuid PRIMARY KEY, aggregatetype varchar(255) NOT NULL,"
                + " aggregateid varchar(255) NOT NULL, type varchar(255) NOT NULL, payload jsonb)");
        for (int i = 0; i < 3; i++) {
            String id = UUID.randomUUID().toString();
            old.add(id);
            db.execute("INSERT INTO public.outboxevent VALUES ('" + id + "', 'Order', 'old-" + i
                    + "', 'OrderPlaced', '{\"old\": true}')");
        }
        CdcRelays.adopt(db, TABLE, PUBLICATION);
        kafka = TestKafka.shared();
        prefix = "dbztable-" + UUID.randomUUID().toString().substring(0, 8);
        kafka.createTopic(prefix + ".Order", 3);
    }

    @AfterEach
    void tearDown() {
        running.forEach(OutboxSource::close);
        db.drop();
    }

    @Test
    void pollRelaysAnAdoptedDebeziumTable() throws Exception {
        assertThat(db.queryLong("SELECT count(*) FROM outboxevent WHERE sent_at IS NOT NULL AND seq IS NULL"))
                .as("rows there before adoption count as sent").isEqualTo(3);
        EventRouter router = EventRouter.topicTemplate(prefix + ".${aggregateType}");
        running.add(PollBesideCdc.startPoll(db, TABLE.toString(), kafka.bootstrapServers(), router, TABLE));
        List<String> expected = write(false);

        DeliveryReport report = read(expected);
        assertThat(report.nothingLost()).as("%s", report).isTrue();
        assertThat(report.inPerKeyOrder()).as("%s", report).isTrue();
        await().atMost(Duration.ofMinutes(1)).until(() -> db.queryLong(
                "SELECT count(*) FROM outboxevent WHERE sent_at IS NULL") == 0);
    }

    @Test
    void cdcRelaysADebeziumTableWhereRowsAreInsertedAndDeletedInOneTransaction() throws Exception {
        EventRouter router = EventRouter.topicTemplate(prefix + ".${aggregateType}", null, Set.of(),
                MessageFormat.debeziumRouter(new RouterSettings(RouterSettings.Value.JSON_EXPANDED,
                        RouterSettings.Key.STRING, RouterSettings.Field.parseList("type:header:eventType"), true),
                        TABLE.layout()));
        OutboxSource cdc = CdcRelays.start(CdcRelays.settings(db, TABLE.toString(), Map.of())
                .table(TABLE).publication(PUBLICATION).build(), kafka.bootstrapServers(), router, RelayListener.none());
        running.add(cdc);
        await().atMost(Duration.ofMinutes(1)).until(cdc::isHealthy);
        List<String> expected = write(true);

        DeliveryReport report = read(expected);
        assertThat(report.nothingLost()).as("%s", report).isTrue();
        assertThat(report.inPerKeyOrder()).as("%s", report).isTrue();
        assertThat(db.queryLong("SELECT count(*) FROM outboxevent WHERE seq IS NOT NULL"))
                .as("the applications deleted what they wrote").isZero();
    }

    private DeliveryReport read(List<String> expected) {
        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(prefix + ".Order", new HashSet<>(expected),
                Duration.ofMinutes(2));
        assertThat(records).extracting(ReadRecord::id).doesNotContainAnyElementsOf(old);
        assertThat(records).as("the null payload").anyMatch(ReadRecord::isTombstone);
        return DeliveryReport.of(records, expected);
    }

    /**
     * Two applications, 20 keys, 600 events in transactions of 3; one event in 50 without payload. With
     * {@code delete}, each transaction deletes its rows before it commits.
     */
    private List<String> write(boolean delete) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<Future<List<String>>> apps = new ArrayList<>();
        for (int app = 0; app < 2; app++) {
            int a = app;
            apps.add(pool.submit(() -> {
                List<String> ids = new ArrayList<>();
                try (Connection c = db.connect(db.relayUser(), db.relayPassword())) {
                    c.setAutoCommit(false);
                    PreparedStatement insert = c.prepareStatement("INSERT INTO public.outboxevent"
                            + " (id, aggregatetype, aggregateid, type, payload) VALUES (?, 'Order', ?, 'OrderPlaced',"
                            + " ?::jsonb)");
                    PreparedStatement remove = c.prepareStatement("DELETE FROM public.outboxevent WHERE id = ?");
                    for (int n = 0; n < 300; n++) {
                        UUID id = UUID.randomUUID();
                        insert.setObject(1, id);
                        insert.setString(2, "order-" + a + "-" + (n % 10));
                        insert.setString(3, n % 50 == 7 ? null : "{\"n\": " + n + "}");
                        insert.executeUpdate();
                        if (delete) {
                            remove.setObject(1, id);
                            remove.executeUpdate();
                        }
                        ids.add(id.toString());
                        if (n % 3 == 2) {
                            c.commit();
                        }
                    }
                    c.commit();
                }
                return ids;
            }));
        }
        List<String> all = new ArrayList<>();
        for (Future<List<String>> f : apps) {
            all.addAll(f.get());
        }
        pool.shutdown();
        return all;
    }
}
