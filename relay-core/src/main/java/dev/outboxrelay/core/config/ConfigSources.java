package dev.outboxrelay.core.config;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * The raw inputs of one resolution: command-line values, the environment, and the {@code --config} file.
 * Nothing here is parsed or validated; {@link ConfigSpec#resolve} does that, reporting every problem at once.
 */
public final class ConfigSources {

    private final Map<String, String> flags;
    private final Map<String, Map<String, String>> passthroughFlags;
    private final Map<String, String> environment;
    private final Map<String, String> connectorConfig;

    private ConfigSources(Builder b) {
        this.connectorConfig = Map.copyOf(b.connectorConfig);
        this.flags = Map.copyOf(b.flags);
        Map<String, Map<String, String>> pt = new LinkedHashMap<>();
        b.passthroughFlags.forEach((k, v) -> pt.put(k, Map.copyOf(v)));
        this.passthroughFlags = Map.copyOf(pt);
        this.environment = Map.copyOf(b.environment);
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Option name (without dashes) to the text given on the command line. */
    public Map<String, String> flags() {
        return flags;
    }

    /** Passthrough prefix to {@code property -> value} given as {@code --prefix.property=value}. */
    public Map<String, Map<String, String>> passthroughFlags() {
        return passthroughFlags;
    }

    public Map<String, String> environment() {
        return environment;
    }

    /** Option name to the text a Kafka Connect connector's configuration gives. */
    public Map<String, String> connectorConfig() {
        return connectorConfig;
    }

    /** Collects raw inputs. */
    public static final class Builder {
        private final Map<String, String> flags = new LinkedHashMap<>();
        private final Map<String, Map<String, String>> passthroughFlags = new LinkedHashMap<>();
        private final Map<String, String> environment = new LinkedHashMap<>();
        private final Map<String, String> connectorConfig = new LinkedHashMap<>();

        private Builder() {
        }

        /** {@code --name value}; {@code name} without the dashes. A repeated flag keeps the last value. */
        public Builder flag(String name, String value) {
            flags.put(Objects.requireNonNull(name, "name"), Objects.requireNonNull(value, "value"));
            return this;
        }

        /** {@code --prefix.property=value}. */
        public Builder passthroughFlag(String prefix, String property, String value) {
            passthroughFlags.computeIfAbsent(prefix, p -> new LinkedHashMap<>()).put(property, value);
            return this;
        }

        /** The process environment (or a test's stand-in); only {@code RELAY_*} variables are read. */
        public Builder environment(Map<String, String> env) {
            environment.putAll(env);
            return this;
        }

        /**
         * A Kafka Connect connector's configuration, keyed by option name: the only source of a connector (no
         * flags, environment or file), which also carries secrets (Connect masks {@code PASSWORD} values).
         */
        public Builder connectorConfig(Map<String, String> config) {
            connectorConfig.putAll(config);
            return this;
        }

        /** Convenience for {@code flag("config", file.toString())}. */
        public Builder configFile(Path file) {
            return flag(ConfigSpec.CONFIG.name(), file.toString());
        }

        public ConfigSources build() {
            return new ConfigSources(this);
        }
    }
}
