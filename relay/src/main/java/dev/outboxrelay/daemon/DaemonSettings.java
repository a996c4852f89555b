package dev.outboxrelay.daemon;

import dev.outboxrelay.core.SourceFactory.Coordination;
import dev.outboxrelay.core.SourceFactory.Gauge;
import dev.outboxrelay.core.SourceInspector;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.schema.OutboxTable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What the daemon needs besides its source, taken from the validated configuration by {@code run}.
 *
 * @param mode               {@code poll} or {@code cdc}, for logs
 * @param relayName          {@code --relay-name}: metrics tag, and the start of the instance name
 * @param table              the outbox table the probe samples and whose relay lock elects the active instance
 * @param coordination       who takes that lock: the daemon, or the source itself
 * @param inspector          what the probe samples of the source's own state (the CDC slot)
 * @param gauges             the source's gauges the inspector samples
 * @param httpHost           {@code --http-host}
 * @param httpPort           {@code --http-port}; 0 serves nothing
 * @param shutdownTimeout    bound of an orderly stop
 * @param probeInterval      period of the database and Kafka probe
 * @param standbyInterval    period of the daemon's lock attempts and checks
 * @param database           connections for the probe and the lock
 * @param producerProperties the producer's connection settings, reused by the Kafka probe
 */
public record DaemonSettings(String mode, String relayName, OutboxTable table, Coordination coordination,
                             SourceInspector inspector, List<Gauge> gauges, String httpHost, int httpPort, Duration shutdownTimeout, Duration probeInterval,
                             Duration standbyInterval, ConnectionFactory database,
                             Map<String, Object> producerProperties) {

    public DaemonSettings {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(relayName, "relayName");
        Objects.requireNonNull(table, "table");
        Objects.requireNonNull(database, "database");
        Objects.requireNonNull(coordination, "coordination");
        Objects.requireNonNull(inspector, "inspector");
        gauges = List.copyOf(gauges);
        producerProperties = Map.copyOf(producerProperties);
    }
}
