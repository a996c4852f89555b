package dev.outboxrelay.poll;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.acknowledge.Acknowledger.OnPublish;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.Password;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.core.delivery.OnPoison;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.contract.ContractSource;
import java.sql.Connection;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/** Test helpers: migrate a test database and start poll sources against the test kit. */
final class PollingRelays {

    private PollingRelays() {
    }

    /** The poll source for the contract suites: faster timers, as flags of {@code run --mode poll}. */
    static final ContractSource CONTRACT = new ContractSource("poll", PollingRelays::migrate,
            database -> Map.of("poll-interval", "200ms", "standby-interval", "200ms"));

    static void migrate(TestDatabase database, String table) throws Exception {
        try (Connection c = database.connect()) {
            OutboxSchema.migrator(OutboxTable.parse(table), OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
    }

    static ConnectionFactory connections(TestDatabase database) {
        return ConnectionFactory.jdbc(database.jdbcUrl(), database.relayUser(),
                () -> Optional.of(Password.of(database.relayPassword())));
    }

    /** Fast timers for tests; options use the CLI names (see RelayContract). */
    static PollSettings.Builder settings(String table, Map<String, String> options) {
        PollSettings.Builder b = PollSettings.builder().table(OutboxTable.parse(table))
                .pollInterval(Duration.ofMillis(200)).standbyInterval(Duration.ofMillis(200))
                .maxBackoff(Duration.ofSeconds(1)).relayName("poll-test");
        if (options.containsKey("on-publish")) {
            b.onPublish(OnPublish.valueOf(options.get("on-publish").toUpperCase(Locale.ROOT)));
        }
        if (options.containsKey("max-attempts")) {
            b.maxAttempts(Integer.parseInt(options.get("max-attempts")));
        }
        if (options.containsKey("on-poison")) {
            b.onPoison(OnPoison.valueOf(options.get("on-poison").toUpperCase(Locale.ROOT)));
        }
        if (options.containsKey("dead-letter-topic")) {
            b.deadLetterTopic(options.get("dead-letter-topic"));
        }
        if (options.containsKey("retention")) {
            b.retention(KafkaOptions.RETENTION.type().parse(options.get("retention")));
        }
        if (options.containsKey("purge-interval")) {
            b.purgeInterval(KafkaOptions.PURGE_INTERVAL.type().parse(options.get("purge-interval")));
        }
        return b;
    }

    static PollingSource start(PollSettings settings, TestDatabase database, String bootstrap,
                               Map<String, String> options, Map<String, String> producer, RelayListener listener) {
        PollingSource source = PollingSource.create(settings, connections(database),
                EventRouter.topicTemplate(options.getOrDefault("topic-template", "outbox.event.${aggregateType}")),
                ProducerSettings.of(bootstrap, producer), listener);
        source.start();
        return source;
    }
}
