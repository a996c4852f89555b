package dev.outboxrelay.cdc;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.acknowledge.Acknowledger.OnPublish;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.Password;
import dev.outboxrelay.core.delivery.OnPoison;
import dev.outboxrelay.core.delivery.TopicLimits;
import dev.outboxrelay.core.publish.EventPublisher;
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

/** Test helpers: migrate a test database and start CDC sources against the test kit. */
final class CdcRelays {

    private CdcRelays() {
    }

    static void migrate(TestDatabase database, String table) throws Exception {
        try (Connection c = database.connect()) {
            OutboxSchema.migrator(OutboxTable.parse(table), OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        database.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + database.relayUser());
    }

    /** Adopts an existing table of the test database (migrate --adopt) and grants it to the relay's role. */
    static void adopt(TestDatabase database, OutboxTable table, String publication) throws Exception {
        try (Connection c = database.connect()) {
            dev.outboxrelay.schema.Migrator.forPlan(OutboxSchema.adoptionPlan(table, publication)).migrate(c);
        }
        database.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + database.relayUser());
    }

    /**
     * Settings for the test database; options use the CLI names (see RelayContract). The slot is named after the
     * database: slots are cluster-wide and other tests share the server.
     */
    static CdcSettings.Builder settings(TestDatabase database, String table, Map<String, String> options) {
        CdcSettings.Builder b = CdcSettings.builder(database.jdbcUrl(), database.relayUser(), database.relayPassword())
                .table(OutboxTable.parse(table)).slotName(slotName(database))
                .heartbeatInterval(Duration.ofSeconds(1));
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

    /** The CDC source for the contract suites: a slot per database, a fast heartbeat. */
    static final ContractSource CONTRACT = new ContractSource("cdc", CdcRelays::migrate,
            database -> Map.of("slot-name", slotName(database), "heartbeat-interval", "1s"));

    static String slotName(TestDatabase database) {
        return ("s_" + database.name()).toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_]", "_");
    }

    static OutboxSource start(CdcSettings settings, String bootstrap, Map<String, String> options,
                              RelayListener listener) {
        return start(settings, bootstrap, router(options), listener);
    }

    static OutboxSource start(CdcSettings settings, String bootstrap, EventRouter router, RelayListener listener) {
        ProducerSettings producer = ProducerSettings.of(bootstrap, Map.of());
        OutboxSource source = CdcSource.create(settings, router,
                EventPublisher.kafka(producer), TopicLimits.kafka(producer.producerProperties()), listener);
        source.start();
        return source;
    }

    /** The router of the contract options' {@code topic-template} (the CLI's default when absent). */
    static EventRouter router(Map<String, String> options) {
        return EventRouter.topicTemplate(options.getOrDefault("topic-template", "outbox.event.${aggregateType}"));
    }
}
