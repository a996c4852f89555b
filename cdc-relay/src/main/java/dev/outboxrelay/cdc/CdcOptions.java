package dev.outboxrelay.cdc;

import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.InstanceOptions;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.Passthrough;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.core.config.Validator;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** The options of {@code run --mode cdc}, declared once; help and the operator guide are generated from them. */
public final class CdcOptions {

    public static final Option<String> SLOT_NAME = Option.string("slot-name")
            .defaultValue(CdcSettings.DEFAULT_SLOT)
            .doc("Logical replication slot the CDC source reads (created when missing; needs REPLICATION).")
            .example("orders_outbox_relay")
            .build();

    public static final Option<Boolean> SLOT_FAILOVER = Option.bool("slot-failover")
            .defaultValue("false")
            .doc("PostgreSQL 17+: make the slot a failover slot, so a standby with sync_replication_slots = on"
                    + " keeps a copy and CDC resumes from it after a failover instead of rescanning the table; pair"
                    + " with synchronized_standby_slots on the primary.")
            .example("true")
            .build();

    public static final Option<CdcSettings.OffsetStore> OFFSET_STORE = Option.enumeration("offset-store",
                    CdcSettings.OffsetStore.class)
            .defaultValue("db")
            .doc("Where the CDC source keeps the WAL position Kafka acknowledged: db (table <table>_cdc_offsets,"
                    + " created by migrate) or file (--offset-file).")
            .example("file")
            .build();

    public static final Option<Path> OFFSET_FILE = Option.path("offset-file")
            .doc("Offsets file for --offset-store file.")
            .example("/var/lib/outbox-relay/offsets.dat")
            .build();

    public static final Option<Duration> HEARTBEAT_INTERVAL = Option.duration("heartbeat-interval")
            .defaultValue("10s")
            .validate(d -> d.isNegative() || d.isZero() ? "must be positive" : null)
            .doc("How often the CDC source moves its slot forward while no outbox row is written, so an idle"
                    + " outbox does not hold back WAL.")
            .example("30s")
            .build();

    /** {@code --debezium.<property>=value}: Debezium connector/engine tuning. */
    public static final Passthrough DEBEZIUM = new Passthrough("debezium",
            "Debezium tuning (queue and batch sizes, poll cadence, retry delays; see docs/cdc-mode.md); settings that"
                    + " could change what is published or skipped are refused.",
            "--debezium.max.batch.size=4096", null);

    /** The CDC source's options. */
    public static final OptionSet SET = OptionSet.builder("Change data capture (--mode cdc)")
            .add(SLOT_NAME).add(SLOT_FAILOVER).add(DatabaseOptions.PUBLICATION).add(OFFSET_STORE).add(OFFSET_FILE)
            .add(HEARTBEAT_INTERVAL).add(InstanceOptions.RELAY_NAME)
            .passthrough(DEBEZIUM)
            .check(CdcOptions::check)
            .build();

    private CdcOptions() {
    }

    private static void check(RelayConfig config, List<String> problems) {
        if (config.find(OFFSET_STORE).orElse(null) == CdcSettings.OffsetStore.FILE
                && config.find(OFFSET_FILE).isEmpty()) {
            problems.add(OFFSET_FILE.flag() + ": required with --offset-store file");
        }
        try {
            settings(config);
        } catch (IllegalArgumentException e) {
            problems.add(e.getMessage());
        } catch (RuntimeException e) {
            // Missing required common options are reported by their own declarations.
        }
    }

    /** The source settings from a validated config. */
    public static CdcSettings settings(RelayConfig config) {
        CdcSettings s = CdcSettings.builder(config.get(DatabaseOptions.DB_URL), config.get(DatabaseOptions.DB_USER),
                        () -> DatabaseOptions.password(config))
                .table(DatabaseOptions.table(config))
                .publication(config.get(DatabaseOptions.PUBLICATION))
                .slotName(config.get(SLOT_NAME))
                .slotFailover(config.get(SLOT_FAILOVER))
                .offsetStore(config.get(OFFSET_STORE))
                .offsetFile(config.find(OFFSET_FILE).orElse(null))
                .heartbeatInterval(config.get(HEARTBEAT_INTERVAL))
                .onPublish(config.get(KafkaOptions.ON_PUBLISH))
                .maxAttempts(config.get(KafkaOptions.MAX_ATTEMPTS))
                .onPoison(config.get(KafkaOptions.ON_POISON))
                .deadLetterTopic(config.find(KafkaOptions.DEAD_LETTER_TOPIC).orElse(null))
                .retention(config.get(KafkaOptions.RETENTION))
                .purgeInterval(config.get(KafkaOptions.PURGE_INTERVAL))
                .relayName(config.get(InstanceOptions.RELAY_NAME))
                .maxInFlightBytes(KafkaOptions.inFlightBytes(config))
                .debezium(config.passthrough(DEBEZIUM.prefix()))
                .build();
        EngineProperties.checkPassthrough(s.debezium());
        return s;
    }
}
