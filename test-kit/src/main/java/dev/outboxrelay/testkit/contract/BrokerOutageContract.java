package dev.outboxrelay.testkit.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The broker goes down mid-stream and comes back: every event arrives in per-key order and no row is charged an
 * attempt. Every source runs it once, on the default PostgreSQL: unlike the {@link RelayContract}, which runs on
 * every supported PostgreSQL version, nothing of it depends on the database.
 */
public abstract class BrokerOutageContract {

    private static final Duration WAIT = Duration.ofSeconds(60);

    private TestDatabase database;
    private RelayEnvironment env;
    private RelayHandle relay;

    /** The source under test. */
    protected abstract ContractSource source();

    @BeforeEach
    final void createDatabase() throws Exception {
        database = TestPostgres.shared().createDatabase("broker_outage");
        source().schema().migrate(database, RelayContract.TABLE);
        env = new RelayEnvironment(database, RelayContract.TABLE, TestKafka.shared());
    }

    @AfterEach
    final void stopEverything() {
        if (relay != null) {
            relay.close();
        }
        if (!env.kafka().isRunning()) {
            env.kafka().restart();
        }
        database.drop();
    }

    @Test
    final void kafkaOutageMidStreamLosesNothingAndChargesNoAttempt() throws Exception {
        String prefix = "outage-" + UUID.randomUUID().toString().substring(0, 8);
        OutboxWriter writer = new OutboxWriter(database, RelayContract.TABLE);
        TopicReader reader = TopicReader.of(env.kafka());
        ContractChecks checks = new ContractChecks(database, writer, reader, WAIT);
        relay = source().start(env, Map.of(RelayContract.TOPIC_TEMPLATE, prefix + ".${aggregateType}"));
        String topic = prefix + ".Outage";
        Workload load = Workload.start(writer, "Outage", 10, 300, 2, 2);
        reader.read(topic, 500, WAIT);
        env.kafka().stop();
        dev.outboxrelay.testkit.Pacing.pause(3000); // writers keep committing while the broker is gone
        env.kafka().restart();
        checks.assertDelivered(topic, load.join());
        checks.awaitNothingUnsent();
        assertThat(database.queryLong("SELECT count(*) FROM outbox WHERE attempts > 0 OR dead_lettered_at IS NOT NULL"))
                .as("a broker outage is nobody's row's fault").isZero();
    }
}
