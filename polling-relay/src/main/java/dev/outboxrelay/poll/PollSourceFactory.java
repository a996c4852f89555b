package dev.outboxrelay.poll;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.core.SourceFactory;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.InstanceOptions;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.RelayConfig;

/** Plugs the poll source into {@code run --mode poll} (registered through {@link java.util.ServiceLoader}). */
public final class PollSourceFactory implements SourceFactory {

    @Override
    public String mode() {
        return "poll";
    }

    @Override
    public OptionSet options() {
        return PollOptions.SET;
    }

    @Override
    public OutboxSource create(RelayConfig config, RelayListener listener) {
        return PollingSource.create(settings(config),
                ConnectionFactory.fromConfig(config).withDefaults(ConnectionFactory.sessionDefaults()),
                KafkaOptions.router(config),
                KafkaOptions.producerSettings(config), listener);
    }

    static PollSettings settings(RelayConfig config) {
        return PollSettings.builder()
                .table(DatabaseOptions.table(config))
                .onPublish(config.get(KafkaOptions.ON_PUBLISH))
                .maxAttempts(config.get(KafkaOptions.MAX_ATTEMPTS))
                .batchSize(config.get(PollOptions.BATCH_SIZE))
                .pollInterval(config.get(PollOptions.POLL_INTERVAL))
                .pipelineDepth(config.get(PollOptions.PIPELINE_DEPTH))
                .onPoison(config.get(KafkaOptions.ON_POISON))
                .deadLetterTopic(config.find(KafkaOptions.DEAD_LETTER_TOPIC).orElse(null))
                .retention(config.get(KafkaOptions.RETENTION))
                .purgeInterval(config.get(KafkaOptions.PURGE_INTERVAL))
                .standbyInterval(config.get(PollOptions.STANDBY_INTERVAL))
                .relayName(config.get(InstanceOptions.RELAY_NAME))
                .maxInFlightBytes(KafkaOptions.inFlightBytes(config))
                .build();
    }
}
