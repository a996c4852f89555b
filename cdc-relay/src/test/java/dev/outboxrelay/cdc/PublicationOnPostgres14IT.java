package dev.outboxrelay.cdc;

import static dev.outboxrelay.cdc.PublicationColumnsIT.assertComplete;
import static dev.outboxrelay.cdc.PublicationColumnsIT.relayOneEvent;
import static dev.outboxrelay.cdc.PublicationColumnsIT.source;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.CapturedLogs;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import java.sql.Connection;
import java.sql.SQLException;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * PostgreSQL 14 has no publication column lists: {@code migrate}'s migration 5 and the relay's own
 * {@code CREATE PUBLICATION} fall back to the whole table, events stay complete, and the relay does not warn
 * about a column list the operator cannot have.
 */
class PublicationOnPostgres14IT {

    private TestDatabase db;
    private TestKafka kafka;
    private String aggregateType;
    private OutboxSource source;
    private CapturedLogs logs;

    @BeforeEach
    void setUp() throws SQLException {
        db = TestPostgres.sharedOfMajor(14).createDatabase("cdcpub14");
        kafka = TestKafka.shared();
        aggregateType = "pub" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection c = db.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        db.execute("GRANT ALL ON ALL TABLES IN SCHEMA public TO " + db.relayUser());
        logs = CapturedLogs.of(SlotManager.class);
    }

    @AfterEach
    void tearDown() {
        logs.close();
        if (source != null) {
            source.close();
        }
        db.drop();
    }

    private long publicationsOfTheOutbox() {
        return db.queryLong("SELECT count(*) FROM pg_publication_tables"
                + " WHERE pubname = 'outbox_relay_pub' AND tablename = 'outbox'");
    }

    @Test
    void migrateReachesTheCurrentVersionAndThePublicationOfEveryColumnRelaysCompleteEvents() throws SQLException {
        assertThat(db.queryLong("SELECT current_setting('server_version_num')::int / 10000")).isEqualTo(14);
        try (Connection c = db.connect()) {
            assertThat(OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION)
                    .currentVersion(c)).isEqualTo(6);
        }
        assertThat(publicationsOfTheOutbox()).isEqualTo(1);
        source = source(db, kafka, db.relayUser(), db.relayPassword());
        assertComplete(relayOneEvent(source, db, kafka, aggregateType));
        assertThat(logs.events()).filteredOn(e -> e.getLevel().isGreaterOrEqual(Level.WARN)).isEmpty();
    }

    @Test
    void publicationTheRelayCreatesCoversTheTable() {
        db.execute("DROP PUBLICATION outbox_relay_pub");
        source = source(db, kafka, db.superUser(), db.superPassword());
        assertComplete(relayOneEvent(source, db, kafka, aggregateType));
        assertThat(publicationsOfTheOutbox()).isEqualTo(1);
        assertThat(logs.messages())
                .contains("Created publication 'outbox_relay_pub' for public.outbox (inserts only)");
    }
}
