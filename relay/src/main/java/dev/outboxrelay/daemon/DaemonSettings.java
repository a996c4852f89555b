package dev.outboxrelay.daemon;

import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.schema.OutboxTable;
import java.time.Duration;
import java.util.Map;
import java.util.Objects;

/**
 * What the daemon needs besides its source, taken from the validated configuration by {@code run}.
 *
 * @param mode               {@code poll} or {@code cdc}, for logs
 * @param relayName          {@code --relay-name}: metrics tag and the key of the CDC engine lock
 * @param table              the outbox table the probe samples
 * @param slotName           the CDC slot whose retained WAL is a gauge, or null in poll mode
 * @param leaderLock         whether the daemon elects the active instance itself (CDC); poll elects its own
 * @param httpHost           {@code --http-host}
 * @param httpPort           {@code --http-port}; 0 serves nothing
 * @param shutdownTimeout    bound of an orderly stop
 * @param probeInterval      period of the database and Kafka probe
 * @param standbyInterval    period of the CDC lock attempts and checks
 * @param database           connections for the probe and the lock
 * @param producerProperties the producer's connection settings, reused by the Kafka probe
 */
public record DaemonSettings(String mode, String relayName, OutboxTable table, String slotName, boolean leaderLock,
                             String httpHost, int httpPort, Duration shutdownTimeout, Duration probeInterval,
                             Duration standbyInterval, ConnectionFactory database,
                             Map<String, Object> producerProperties) {

    public DaemonSettings {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(relayName, "relayName");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(database, "database");
        producerProperties = Map.copyOf(producerProperties);
    }
}
