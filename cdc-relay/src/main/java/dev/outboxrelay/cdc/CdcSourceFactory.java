package dev.outboxrelay.cdc;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.SourceFactory;
import dev.outboxrelay.core.SourceInspector;
import dev.outboxrelay.core.config.InstanceOptions;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.core.delivery.TopicLimits;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.publish.ProducerSettings;
import java.util.List;

/** Plugs the CDC source into {@code run --mode cdc} (registered through {@link java.util.ServiceLoader}). */
public final class CdcSourceFactory implements SourceFactory {

    @Override
    public String mode() {
        return "cdc";
    }

    @Override
    public OptionSet options() {
        return CdcOptions.SET;
    }

    @Override
    public OutboxSource create(RelayConfig config, RelayListener listener) {
        ProducerSettings producer = KafkaOptions.producerSettings(config);
        return CdcSource.create(CdcOptions.settings(config),
                KafkaOptions.router(config), EventPublisher.kafka(producer),
                TopicLimits.kafka(producer.producerProperties()), listener);
    }

    /** A closed engine cannot be restarted, so the daemon holds the table lock and starts a fresh source per term. */
    @Override
    public Coordination coordination() {
        return Coordination.DAEMON;
    }

    @Override
    public List<Option<?>> statusOptions() {
        return List.of(CdcOptions.SLOT_NAME);
    }

    @Override
    public SourceInspector inspector(RelayConfig config) {
        return new SlotInspector(config.get(CdcOptions.SLOT_NAME), 
                config.find(InstanceOptions.RELAY_NAME).orElse(InstanceOptions.DEFAULT_RELAY_NAME));
    }

    @Override
    public List<Gauge> gauges() {
        List<Gauge> gauges = new java.util.ArrayList<>(List.of(SlotInspector.RETAINED_WAL));
        gauges.addAll(EngineStatistics.GAUGES);
        return List.copyOf(gauges);
    }
}
