package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.CapturedLogs;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** {@code --slot-failover} on a single server: refused before PostgreSQL 17, and it converts an existing slot. */
class FailoverSlotIT {

    private TestDatabase db;
    private OutboxSource source;

    @AfterEach
    void tearDown() {
        if (source != null) {
            source.close();
        }
        if (db != null) {
            db.drop();
        }
    }

    @Test
    void failoverSlotBeforePostgres17IsRefusedNamingTheOption() throws Exception {
        db = migrated(TestPostgres.shared());
        String version = db.queryString("SHOW server_version");
        source = source();
        assertThatThrownBy(source::start).isInstanceOf(CdcSetupException.class)
                .hasMessage("--slot-failover needs PostgreSQL 17 or later, and the database runs " + version
                        + ": remove the option, or upgrade");
    }

    @Test
    void anExistingSlotBecomesAFailoverSlot() throws Exception {
        db = migrated(TestPostgres.sharedOfMajor(17));
        db.execute("SELECT pg_create_logical_replication_slot('outbox_relay', 'pgoutput')");
        CapturedLogs logs = CapturedLogs.of(FailoverSlots.class);
        try (logs) {
            source = source();
            source.start();
            await().atMost(Duration.ofSeconds(60)).until(source::isHealthy);
        }
        assertThat(db.queryString("SELECT failover::text FROM pg_replication_slots WHERE slot_name = 'outbox_relay'"))
                .isEqualTo("true");
        assertThat(logs.messages()).contains("Replication slot"
                + " 'outbox_relay' is now a failover slot: standbys with sync_replication_slots = on keep a copy");
    }

    private static TestDatabase migrated(TestPostgres server) throws Exception {
        TestDatabase database = server.createDatabase("failoverslot");
        try (Connection c = database.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        database.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + database.relayUser());
        return database;
    }

    private OutboxSource source() {
        return CdcSource.create(CdcSettings.builder(db.jdbcUrl(), db.relayUser(), db.relayPassword())
                        .slotFailover(true).heartbeatInterval(Duration.ofSeconds(1)).build(),
                EventRouter.topicTemplate("fs.${aggregateType}"),
                EventPublisher.kafka(ProducerSettings.of(TestKafka.shared().bootstrapServers(), Map.of())),
                RelayListener.none());
    }
}
