package dev.outboxrelay.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TcpProxy;
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
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A network path to PostgreSQL that silently drops everything (no reset, no close) while events are written: the
 * relay's sessions time out ({@code socketTimeout} in the URL; the relay's default is 60 s), are replaced, and
 * once the path is back every event is delivered. Without socket timeouts a session would wait forever.
 *
 * <p>Both sources run it. CDC: Debezium notices the dead replication path and restarts its task inside its engine
 * without telling anyone, so the source watches the stream itself: a live stream hands over a heartbeat every
 * heartbeat interval even when nothing is written, and three missed ones make it unhealthy. An idle relay must
 * therefore stay healthy, which the test checks first.
 */
public abstract class BlackHoleContract {

    /** Seconds of silence after which a read gives up, set in the URL for the test (the default is 60). */
    private static final int SOCKET_TIMEOUT_SECONDS = 3;
    /** Longer than CDC's silence bound with the contract's 1 s heartbeat (3 missed heartbeats and 2 s). */
    private static final Duration IDLE = Duration.ofSeconds(8);

    private TestDatabase database;
    private TcpProxy proxy;
    private RelayHandle relay;

    /** The source under test. */
    protected abstract ContractSource source();

    @BeforeEach
    final void setUp() throws Exception {
        database = TestPostgres.shared().createDatabase("black_hole");
        source().schema().migrate(database, RelayContract.TABLE);
        proxy = TcpProxy.to(database.port());
    }

    @AfterEach
    final void tearDown() {
        if (relay != null) {
            relay.close();
        }
        proxy.close();
        database.drop();
    }

    @Test
    final void aBlackHoledDatabasePathIsDetectedAndEverythingArrivesOnceItIsBack() throws Exception {
        String topic = "black-hole-" + UUID.randomUUID().toString().substring(0, 8);
        TestKafka.shared().createTopic(topic, 2);
        String url = database.jdbcUrl().replace(":" + database.port() + "/", ":" + proxy.port() + "/")
                + (database.jdbcUrl().contains("?") ? "&" : "?") + "socketTimeout=" + SOCKET_TIMEOUT_SECONDS;
        RelayEnvironment env = new RelayEnvironment(database, RelayContract.TABLE, TestKafka.shared());
        Map<String, String> flags = new java.util.HashMap<>(source().testFlags().apply(database));
        flags.put("db-url", url);
        flags.put(RelayContract.TOPIC_TEMPLATE, topic);
        relay = FactoryRelays.start(source().mode(), env, flags);
        OutboxWriter writer = new OutboxWriter(database, RelayContract.TABLE);
        List<String> ids = new ArrayList<>(write(writer, "before", 50));
        TopicReader reader = TopicReader.of(TestKafka.shared());
        reader.readUntilIds(topic, new HashSet<>(ids), Duration.ofSeconds(60));
        // Healthy all through a quiet spell without a row written (idle must not look like a dead path).
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30)).until(relay::healthy);
        dev.outboxrelay.testkit.Throughout.holds("healthy without a row written", IDLE, relay::healthy);

        proxy.blackHole(true);
        ids.addAll(write(writer, "during", 50)); // the writer connects directly: only the relay's path is gone
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(SOCKET_TIMEOUT_SECONDS * 5L))
                .until(() -> !relay.healthy()); // detected while the path is still silent
        proxy.blackHole(false);
        ids.addAll(write(writer, "after", 50));

        List<ReadRecord> records = reader.readUntilIds(topic, new HashSet<>(ids), Duration.ofSeconds(120));
        DeliveryReport report = DeliveryReport.of(records, ids);
        assertThat(report.atLeastOnceInOrder()).as("%s", report).isTrue();
    }

    private static List<String> write(OutboxWriter writer, String phase, int n) {
        List<Row> rows = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            rows.add(Row.of("Order", phase + "-" + (i % 5), i));
        }
        return writer.insert(rows);
    }
}
