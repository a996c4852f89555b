package dev.outboxrelay.cdc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxrelay.schema.Migration;
import dev.outboxrelay.schema.MigrationException;
import dev.outboxrelay.schema.MigrationResult;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.contract.PartitionedOutbox;
import java.sql.Connection;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Migration 5 (the publication's column list) on a partitioned outbox table whose publication publishes per
 * partition ({@code publish_via_partition_root = false}): PostgreSQL refuses a column list there, so the step used
 * to fail and {@code migrate} with it. It now publishes the rows under the table's name first — what the CDC
 * relay requires of a partitioned table anyway — and then sets the column list.
 */
class MigrationFiveOnPartitionedTableIT {

    private TestDatabase db;

    @BeforeEach
    void setUp() throws Exception {
        db = TestPostgres.shared().createDatabase("mig5part");
        try (Connection c = db.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        PartitionedOutbox.convert(db, OutboxTable.DEFAULT.toString(), 3);
        // As a database partitioned before version 5 was: published per partition, every column, no step 5 yet.
        db.execute("ALTER PUBLICATION outbox_relay_pub DROP TABLE outbox;"
                + " ALTER PUBLICATION outbox_relay_pub SET (publish_via_partition_root = false);"
                + " ALTER PUBLICATION outbox_relay_pub ADD TABLE outbox;"
                + " DELETE FROM outbox_relay_schema_history WHERE version = 5");
    }

    @AfterEach
    void tearDown() {
        db.drop();
    }

    @Test
    void stepFiveOnAPartitionedTablePublishedPerPartitionPublishesUnderTheTablesNameWithTheColumnList()
            throws Exception {
        MigrationResult result;
        try (Connection c = db.connect()) {
            result = OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        assertThat(result.applied()).extracting(m -> m.version()).containsExactly(5);
        assertThat(db.queryString("SELECT pubviaroot::text FROM pg_publication WHERE pubname = 'outbox_relay_pub'"))
                .isEqualTo("true");
        assertThat(db.queryString("SELECT array_to_string(attnames, ',') FROM pg_publication_tables"
                + " WHERE pubname = 'outbox_relay_pub' AND tablename = 'outbox'"))
                .isEqualTo("id,aggregate_type,aggregate_id,event_type,payload,headers");
    }

    @Test
    void aDatabaseThatAppliedTheEarlierTextOfStepFiveIsStillCurrent() throws Exception {
        try (Connection c = db.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        Migration five = OutboxSchema.plan(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrations().get(4);
        assertThat(five.formerChecksums()).hasSize(1);
        db.execute("UPDATE outbox_relay_schema_history SET checksum = '" + five.formerChecksums().iterator().next()
                + "' WHERE version = 5");
        try (Connection c = db.connect()) {
            assertThat(OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c)
                    .alreadyCurrent()).isTrue();
        }
        db.execute("UPDATE outbox_relay_schema_history SET checksum = 'changed-by-hand' WHERE version = 5");
        try (Connection c = db.connect()) {
            assertThatThrownBy(() -> OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION)
                    .migrate(c)).isInstanceOf(MigrationException.class)
                    .hasMessageContaining("was applied with a different script (checksum changed-by-hand");
        }
    }
}
