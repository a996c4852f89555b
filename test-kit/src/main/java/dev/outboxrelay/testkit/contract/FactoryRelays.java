package dev.outboxrelay.testkit.contract;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.SourceFactory;
import dev.outboxrelay.core.config.ConfigSources;
import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.core.publish.ProducerSettings;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Starts a source the way {@code run --mode <mode>} does: the {@link SourceFactory} registered for the mode (found
 * through {@link ServiceLoader}) builds it from a {@link RelayConfig} resolved from flags and the environment by
 * the same declarations and validation the CLI uses. Only the daemon around it (HTTP, probes, the daemon's lock)
 * is left out.
 */
public final class FactoryRelays {

    private FactoryRelays() {
    }

    /** The factory serving {@code mode} on this classpath. */
    public static SourceFactory factory(String mode) {
        return ServiceLoader.load(SourceFactory.class).stream().map(ServiceLoader.Provider::get)
                .filter(f -> f.mode().equals(mode)).findFirst()
                .orElseThrow(() -> new IllegalStateException("no SourceFactory for --mode " + mode));
    }

    /**
     * The validated configuration of a relay in {@code env}: its database (as the relay role, password from the
     * environment), table and broker, plus {@code flags} (CLI names without dashes, e.g. {@code on-poison};
     * {@code kafka.<property>} is a producer passthrough, as {@code --kafka.<property>=value}).
     */
    public static RelayConfig config(String mode, RelayEnvironment env, Map<String, String> flags) {
        SourceFactory factory = factory(mode);
        Map<String, String> all = new LinkedHashMap<>();
        all.put("db-url", env.jdbcUrl());
        all.put("db-user", env.relayUser());
        all.put("table", env.table());
        all.put("kafka-bootstrap", env.kafkaBootstrap());
        all.putAll(flags);
        Map<String, String> environment = new LinkedHashMap<>(Map.of("RELAY_DB_PASSWORD", env.relayPassword()));
        ConfigSources.Builder sources = ConfigSources.builder();
        all.forEach((name, value) -> {
            String property = name.startsWith("kafka.") ? name.substring("kafka.".length()) : null;
            if (property != null && ProducerSettings.isSecret(property)) {
                // As in production: the relay refuses secrets on the command line.
                environment.put(KafkaOptions.KAFKA.envVarOf(property), value);
            } else if (property != null) {
                sources.passthroughFlag("kafka", property, value);
            } else {
                sources.flag(name, value);
            }
        });
        return ConfigSpec.of(DatabaseOptions.CONNECTION, KafkaOptions.SET, factory.options())
                .resolve(sources.environment(environment).build());
    }

    /** Builds and starts the source of {@code mode} from {@link #config}; the handle closes it. */
    public static RelayHandle start(String mode, RelayEnvironment env, Map<String, String> flags) {
        return start(mode, env, flags, RelayListener.none());
    }

    /** The same, reporting to {@code listener}. */
    public static RelayHandle start(String mode, RelayEnvironment env, Map<String, String> flags,
                                    RelayListener listener) {
        OutboxSource source = factory(mode).create(config(mode, env, flags), listener);
        source.start();
        return new RelayHandle() {
            @Override
            public boolean healthy() {
                return source.isHealthy();
            }

            @Override
            public void close() {
                source.close();
            }
        };
    }
}
