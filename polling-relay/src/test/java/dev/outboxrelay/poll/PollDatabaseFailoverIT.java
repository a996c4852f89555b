package dev.outboxrelay.poll;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.config.Password;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.PostgresFailover;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The database fails over while the poll source runs: a hot standby is promoted behind the address the relay
 * uses. The relay reconnects with backoff and publishes what the new primary holds unsent; a consumer sees every
 * event committed on either server, in per-key order. On the installed server and on the oldest supported
 * version, 14, whose standby the test kit copies with the pre-15 backup functions.
 */
class PollDatabaseFailoverIT {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String TABLE = "public.outbox";

    private final String aggregateType = "pfo" + UUID.randomUUID().toString().substring(0, 8);

    @ParameterizedTest(name = "PostgreSQL {0}")
    @ValueSource(ints = {0, 14})
    void promotedStandbyGetsEveryEventPublished(int major) throws Exception {
        try (PostgresFailover pg = PostgresFailover.start(major, "pollfailover",
                db -> PollingRelays.migrate(db, TABLE))) {
            try (PollingSource relay = PollingSource.create(PollingRelays.settings(TABLE, Map.of()).build(),
                    ConnectionFactory.jdbc(pg.jdbcUrl(), pg.database().relayUser(),
                            () -> Optional.of(Password.of(pg.database().relayPassword()))), EventRouter.topicTemplate("pfo.${aggregateType}"),
                    ProducerSettings.of(TestKafka.shared().bootstrapServers(), Map.of()), RelayListener.none())) {
                relay.start();
                List<String> ids = new ArrayList<>(insert(writer(pg), 0, 50));
                await().atMost(WAIT).until(() -> writer(pg).unsent() == 0);
                ids.addAll(insert(writer(pg), 50, 30)); // published or not when the primary dies
                pg.awaitReplayed(WAIT);
                pg.failOver();
                ids.addAll(insert(writer(pg), 80, 20));
                DeliveryReport report = DeliveryReport.of(TopicReader.of(TestKafka.shared())
                        .readUntilIds("pfo." + aggregateType, new HashSet<>(ids), WAIT), ids);
                assertThat(report.atLeastOnceInOrder()).as("%s", report).isTrue();
                await().atMost(WAIT).until(() -> writer(pg).unsent() == 0);
            }
        }
    }

    /** Writes to the current primary (the promoted standby after the failover). */
    private static OutboxWriter writer(PostgresFailover pg) {
        return new OutboxWriter(pg.database(), TABLE);
    }

    private List<String> insert(OutboxWriter writer, int from, int count) {
        return writer.insert(IntStream.range(from, from + count)
                .mapToObj(n -> OutboxWriter.Row.of(aggregateType, "key-" + n % 4, n)).toList());
    }

}
