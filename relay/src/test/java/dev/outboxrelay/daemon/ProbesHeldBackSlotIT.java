package dev.outboxrelay.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.core.SourceFactory;
import dev.outboxrelay.core.config.ConfigSources;
import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.Password;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import java.sql.Connection;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceLoader;
import org.junit.jupiter.api.Test;

/**
 * The daemon's readiness when PostgreSQL holds the CDC slot back: a failover slot streams nothing while a standby
 * slot named in {@code synchronized_standby_slots} is inactive, so the relay stands still although everything is
 * reachable. The probe says so (not ready, with the cause) and clears once the setting no longer holds it back.
 */
class ProbesHeldBackSlotIT {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Test
    void aFailoverSlotHeldBackByAnInactiveStandbyMakesTheRelayNotReady() throws Exception {
        TestDatabase db = TestPostgres.sharedOfMajor(17).createDatabase("heldback");
        try (Connection c = db.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        String standby = "standby_of_" + db.name();
        db.execute("SELECT pg_create_physical_replication_slot('" + standby + "')");
        db.execute("SELECT pg_create_logical_replication_slot('outbox_relay', 'pgoutput', false, false, true)");
        ConnectionFactory connections = ConnectionFactory.jdbc(db.jdbcUrl(), db.relayUser(),
                () -> Optional.of(Password.of(db.relayPassword())));
        Map<String, Object> kafka = Map.of("bootstrap.servers", TestKafka.shared().bootstrapServers());
        // The CDC module's inspector, found as the daemon finds it: through its SourceFactory.
        SourceFactory cdc = ServiceLoader.load(SourceFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> f.mode().equals("cdc")).findFirst().orElseThrow();
        RelayConfig config = ConfigSpec.of(OptionSet.of("status", cdc.statusOptions().toArray(Option<?>[]::new)))
                .resolve(ConfigSources.builder().flag("slot-name", "outbox_relay").build());
        try (Probes probes = new Probes(connections, OutboxTable.DEFAULT, cdc.inspector(config),
                new KafkaProbe(kafka, Duration.ofSeconds(2)), new RelayMetrics("heldback", "cdc", cdc.gauges(), () -> true,
                () -> true), Duration.ofMillis(200))) {
            probes.start();
            await().atMost(WAIT).until(() -> probes.databaseProblem() == null);

            db.execute("ALTER SYSTEM SET synchronized_standby_slots = '" + standby + "'");
            db.execute("SELECT pg_reload_conf()");
            await().atMost(WAIT).until(() -> ("replication slot 'outbox_relay' is held back: standby slot(s) "
                    + standby + " in synchronized_standby_slots are not active").equals(probes.databaseProblem()));

            db.execute("ALTER SYSTEM RESET synchronized_standby_slots");
            db.execute("SELECT pg_reload_conf()");
            await().atMost(WAIT).until(() -> probes.databaseProblem() == null);
        } finally {
            db.execute("ALTER SYSTEM RESET synchronized_standby_slots");
            db.execute("SELECT pg_reload_conf()");
            db.execute("SELECT pg_drop_replication_slot('" + standby + "')");
            db.drop();
        }
    }
}
