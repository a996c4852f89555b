package dev.outboxrelay.cdc;

import static dev.outboxrelay.cdc.PublicationColumnsIT.assertComplete;
import static dev.outboxrelay.cdc.PublicationColumnsIT.relayOneEvent;
import static dev.outboxrelay.cdc.PublicationColumnsIT.source;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.contract.PartitionedOutbox;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A partitioned outbox table: its rows must be published under the table's own name
 * ({@code publish_via_partition_root}), or Debezium, which streams only the outbox table, would never see them.
 * The relay creates its publication that way, and refuses one that publishes per partition.
 */
class PartitionedPublicationIT {

    private TestDatabase db;
    private TestKafka kafka;
    private OutboxSource source;

    @BeforeEach
    void setUp() throws Exception {
        db = TestPostgres.shared().createDatabase("cdcpart");
        kafka = TestKafka.shared();
        CdcRelays.migrate(db, OutboxTable.DEFAULT.toString());
        PartitionedOutbox.convert(db, OutboxTable.DEFAULT.toString(), 3);
    }

    @AfterEach
    void tearDown() {
        if (source != null) {
            source.close();
        }
        db.drop();
    }

    @Test
    void publicationTheRelayCreatesPublishesThePartitionsUnderTheTablesName() {
        db.execute("DROP PUBLICATION outbox_relay_pub");
        source = source(db, kafka, db.superUser(), db.superPassword());
        assertComplete(relayOneEvent(source, db, kafka, "part" + UUID.randomUUID().toString().substring(0, 8)));
        assertThat(db.queryString("SELECT pubviaroot::text FROM pg_publication WHERE pubname = 'outbox_relay_pub'"))
                .isEqualTo("true");
        assertThat(db.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL")).isEqualTo(1);
    }

    @Test
    void publicationThatPublishesPerPartitionIsRefused() {
        db.execute("ALTER PUBLICATION outbox_relay_pub DROP TABLE outbox;"
                + " ALTER PUBLICATION outbox_relay_pub SET (publish_via_partition_root = false);"
                + " ALTER PUBLICATION outbox_relay_pub ADD TABLE outbox");
        source = source(db, kafka, db.relayUser(), db.relayPassword());
        assertThatThrownBy(source::start).isInstanceOf(CdcSetupException.class)
                .hasMessage("table public.outbox is partitioned and publication 'outbox_relay_pub' publishes its rows"
                        + " under the partitions' names: run ALTER PUBLICATION \"outbox_relay_pub\" SET"
                        + " (publish_via_partition_root = true)");
    }
}
