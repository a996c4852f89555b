package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.cdc.CdcOptions;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.SlotInvalidation;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestPostgres;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * {@code status} on a CDC slot in trouble, for real: one PostgreSQL invalidated (unhealthy, and it says why:
 * PostgreSQL 17+ records the reason; before, running out of WAL was the only one), and a failover slot held back
 * by an inactive standby slot in {@code synchronized_standby_slots}.
 */
class StatusOfTheCdcSlotIT {

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

    @Test
    void statusSaysWhenAFailoverSlotIsHeldBackByAnInactiveStandby() throws Exception {
        db = TestPostgres.sharedOfMajor(17).createDatabase("statusheld");
        try (Connection c = db.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        String standby = "standby_of_" + db.name();
        db.execute("SELECT pg_create_physical_replication_slot('" + standby + "')");
        db.execute("SELECT pg_create_logical_replication_slot('" + SLOT + "', 'pgoutput', false, false, true)");
        try {
            db.execute("ALTER SYSTEM SET synchronized_standby_slots = '" + standby + "'");
            db.execute("SELECT pg_reload_conf()");
            await().atMost(Duration.ofSeconds(30)).until(() -> standby.equals(
                    db.queryString("SHOW synchronized_standby_slots")));

            CliRun text = status();
            assertThat(text.exitCode()).as(text.err()).isEqualTo(3);
            assertThat(text.out()).contains("slot " + SLOT + ": inactive, failover, held back by inactive standby"
                            + " slot(s) " + standby + ", wal_status reserved")
                    .endsWith("status: unhealthy: replication slot '" + SLOT + "' is held back: standby slot(s) "
                            + standby + " in synchronized_standby_slots are not active, and PostgreSQL streams no"
                            + " change to a failover slot until they are (start the standby, or change"
                            + " synchronized_standby_slots)\n");
            assertThat(status("--json").out()).contains("\"held_back_by\":\"" + standby + "\"");
        } finally {
            db.execute("ALTER SYSTEM RESET synchronized_standby_slots");
            db.execute("SELECT pg_reload_conf()");
            db.execute("SELECT pg_drop_replication_slot('" + standby + "')");
        }
        // Without the setting nothing holds the slot back.
        await().atMost(Duration.ofSeconds(30)).until(() -> db.queryString("SHOW synchronized_standby_slots").isEmpty());
        CliRun healthy = status();
        assertThat(healthy.exitCode()).as(healthy.out()).isZero();
        assertThat(healthy.out()).contains("slot " + SLOT + ": inactive, failover, wal_status reserved");
    }

    private CliRun status(String... extra) {
        String[] args = new String[5 + extra.length];
        String[] base = {"status", "--db-url", db.jdbcUrl(), "--db-user", db.relayUser()};
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return CliRun.of(Map.of("RELAY_DB_PASSWORD", db.relayPassword()), args);
    }
}
