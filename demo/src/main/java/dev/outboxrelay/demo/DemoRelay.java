package dev.outboxrelay.demo;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.SourceFactory;
import dev.outboxrelay.core.config.ConfigSources;
import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.testkit.TestDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Starts the relay the way {@code outbox-relay run} does: the source factory registered for the mode, the
 * same option sets and validation, as the unprivileged relay role with its password from
 * {@code RELAY_DB_PASSWORD}. Only the daemon shell (signals, HTTP) is left out.
 */
final class DemoRelay {

    private static final Duration HEALTHY_WITHIN = Duration.ofSeconds(90);

    private DemoRelay() {
    }

    /** Starts the source and waits until it reports healthy (CDC: slot created and streaming). */
    static OutboxSource start(String mode, TestDatabase db, String bootstrap, String topicTemplate,
                              RelayListener listener) throws InterruptedException {
        SourceFactory factory = ServiceLoader.load(SourceFactory.class, DemoRelay.class.getClassLoader()).stream()
                .map(ServiceLoader.Provider::get).filter(f -> f.mode().equals(mode)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no source registered for --mode " + mode));
        ConfigSpec spec = ConfigSpec.of(DatabaseOptions.CONNECTION, KafkaOptions.SET, factory.options());
        RelayConfig config = spec.resolve(ConfigSources.builder()
                .environment(Map.of(DatabaseOptions.DB_PASSWORD.envVar(), db.relayPassword()))
                .flag(DatabaseOptions.DB_URL.name(), db.jdbcUrl())
                .flag(DatabaseOptions.DB_USER.name(), db.relayUser())
                .flag(KafkaOptions.KAFKA_BOOTSTRAP.name(), bootstrap)
                .flag(KafkaOptions.TOPIC_TEMPLATE.name(), topicTemplate)
                .build());
        OutboxSource source = factory.create(config, listener);
        source.start();
        long deadline = System.nanoTime() + HEALTHY_WITHIN.toNanos();
        while (!source.isHealthy()) {
            if (System.nanoTime() > deadline) {
                source.close();
                throw new IllegalStateException("the " + mode + " source did not become healthy within "
                        + HEALTHY_WITHIN.toSeconds() + " s");
            }
            Thread.sleep(50);
        }
        return source;
    }
}
