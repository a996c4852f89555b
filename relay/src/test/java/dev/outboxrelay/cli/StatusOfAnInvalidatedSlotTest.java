package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.cdc.CdcOptions;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.SlotInvalidation;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestPostgres;
import java.sql.Connection;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code status} on a slot PostgreSQL really invalidated: unhealthy, and it says why (PostgreSQL 17+ records
 * the reason; before, running out of WAL was the only one). On 17+ the slot is a failover slot, which status shows.
 */
class StatusOfAnInvalidatedSlotTest {

    private static final String SLOT = CdcOptions.SLOT_NAME.defaultValue();

    private TestDatabase db;

    @AfterEach
    void tearDown() {
        if (db != null) {
            db.drop();
        }
    }

    @ParameterizedTest(name = "PostgreSQL {0}: {1}")
    @CsvSource({"0, wal_removed, 'the WAL it needed was removed, see max_slot_wal_keep_size'",
            "18, idle_timeout, it was inactive longer than idle_replication_slot_timeout"})
    void statusSaysWhyTheSlotWasInvalidated(int major, String reason, String cause) throws Exception {
        db = TestPostgres.sharedOfMajor(major).createDatabase("statusslot");
        try (Connection c = db.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        boolean recordsReason = db.queryLong("SELECT current_setting('server_version_num')::int") >= 170000;
        // From 17 on, as --slot-failover creates it: status shows that too.
        db.execute("SELECT pg_create_logical_replication_slot('" + SLOT + "', 'pgoutput'"
                + (recordsReason ? ", false, false, true" : "") + ")");
        SlotInvalidation.invalidate(db, SLOT, reason);

        CliRun text = status();
        assertThat(text.exitCode()).as(text.err()).isEqualTo(3);
        assertThat(text.out()).contains("slot " + SLOT + ": inactive" + (recordsReason ? ", failover" : "")
                        + ", wal_status lost"
                        + (recordsReason ? ", invalidation_reason " + reason : "") + ", retained WAL ")
                .endsWith("status: unhealthy: replication slot '" + SLOT + "' was invalidated (" + cause
                        + "): the next CDC start recreates it and rescans the table\n");

        CliRun json = status("--json");
        assertThat(json.exitCode()).isEqualTo(3);
        assertThat(json.out()).contains("\"wal_status\":\"lost\"", "\"invalidation_reason\":"
                + (recordsReason ? "\"" + reason + "\"" : "null"), "\"failover\":" + recordsReason);
    }

    private CliRun status(String... extra) {
        String[] args = new String[5 + extra.length];
        String[] base = {"status", "--db-url", db.jdbcUrl(), "--db-user", db.relayUser()};
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return CliRun.of(Map.of("RELAY_DB_PASSWORD", db.relayPassword()), args);
    }
}
