package dev.outboxrelay.schema;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class AdvisoryLocksTest {

    @Test
    void theInstanceNameCarriesRelayHostPidAndModeAndFitsApplicationName() {
        String name = AdvisoryLocks.instanceName("orders-relay", "cdc");
        assertThat(name).startsWith("orders-relay@").endsWith(":" + ProcessHandle.current().pid() + "/cdc");

        String longName = AdvisoryLocks.instanceName("r".repeat(100), "poll");
        assertThat(longName).hasSize(63).endsWith("/poll");
        assertThat(new AdvisoryLocks.Holder(longName, 1, "local socket", "now").mode()).isEqualTo("poll");
    }

    @Test
    void aHolderThatIsNoRelayOfThisVersionShowsAsRelay() {
        assertThat(new AdvisoryLocks.Holder("psql", 1, "local socket", "now").mode()).isEqualTo("relay");
        assertThat(new AdvisoryLocks.Holder(null, 1, "hidden", "hidden").mode()).isEqualTo("relay");
    }

    @Test
    void everyLockNamespaceIsDistinct() {
        assertThat(AdvisoryLocks.MIGRATE).isNotEqualTo(AdvisoryLocks.RELAY);
        assertThat(AdvisoryLocks.migrateLockStatement("public.outbox_schema_history"))
                .isEqualTo("SELECT pg_advisory_xact_lock(hashtext('outbox-relay-migrate'),"
                        + " hashtext('public.outbox_schema_history'))");
    }
}
