package dev.outboxrelay.core.config;

import dev.outboxrelay.core.publish.Secrets;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;

/**
 * The validated, immutable configuration of one command: typed values of every declared option, where each
 * came from, and the passthrough properties. Only {@link ConfigSpec#resolve} creates one, after every
 * check passed; {@link #toString()} is the masked dump and safe to log.
 */
public final class RelayConfig {

    private final ConfigSpec spec;
    private final Map<Option<?>, Object> values;
    private final Map<Option<?>, String> raw;
    private final Map<Option<?>, ValueSource> origin;
    private final Map<String, Map<String, String>> passthrough;
    private final Map<String, ValueSource> passthroughOrigin;

    RelayConfig(ConfigSpec spec, Map<Option<?>, Object> values, Map<Option<?>, String> raw,
                Map<Option<?>, ValueSource> origin, Map<String, Map<String, String>> passthrough,
                Map<String, ValueSource> passthroughOrigin) {
        this.spec = spec;
        this.values = new IdentityHashMap<>(values);
        this.raw = new IdentityHashMap<>(raw);
        this.origin = new IdentityHashMap<>(origin);
        Map<String, Map<String, String>> pt = new LinkedHashMap<>();
        // Insertion order, not Map.copyOf: problems and dumps list properties in the order the user gave them,
        // and Map.copyOf iterates in an order that changes from one JVM run to the next.
        passthrough.forEach((k, v) -> pt.put(k, java.util.Collections.unmodifiableMap(new LinkedHashMap<>(v))));
        this.passthrough = java.util.Collections.unmodifiableMap(pt);
        this.passthroughOrigin = new LinkedHashMap<>(passthroughOrigin);
    }

    /**
     * The value of {@code option}: set by a source or defaulted.
     *
     * @throws NoSuchElementException when the option has no value (not set and no default), or is not part of
     *                                this command's spec
     */
    public <T> T get(Option<T> option) {
        return find(option).orElseThrow(() -> new NoSuchElementException(option.displayName() + " is not set"));
    }

    /** The value of {@code option}, empty when not set and without default. */
    @SuppressWarnings("unchecked")
    public <T> Optional<T> find(Option<T> option) {
        return Optional.ofNullable((T) values.get(option));
    }

    /** Where the value came from; empty when the option is not set. */
    public Optional<ValueSource> source(Option<?> option) {
        return Optional.ofNullable(origin.get(option));
    }

    /** The properties of a passthrough family, without the prefix (e.g. {@code linger.ms -> 10}). */
    public Map<String, String> passthrough(String prefix) {
        return passthrough.getOrDefault(prefix, Map.of());
    }

    /** Where a passthrough property ({@code kafka.linger.ms}) came from. */
    public Optional<ValueSource> passthroughSource(String prefixedKey) {
        return Optional.ofNullable(passthroughOrigin.get(prefixedKey));
    }

    public ConfigSpec spec() {
        return spec;
    }

    /**
     * The effective configuration, one line per option and passthrough property:
     * {@code name = value (source)}, secrets and secret-looking passthrough keys shown as {@code [hidden]}.
     */
    public List<String> dump() {
        List<String> lines = new ArrayList<>();
        for (Option<?> o : spec.options()) {
            String text = raw.get(o);
            String shown = text == null ? "(not set)" : o.shown(text);
            lines.add(o.name() + " = " + shown + (text == null ? "" : " (" + origin.get(o).label() + ")"));
        }
        passthrough.forEach((prefix, props) -> props.forEach((k, v) -> {
            String key = prefix + "." + k;
            lines.add(key + " = " + (Secrets.looksSecret(k) ? Secrets.MASK : v)
                    + " (" + passthroughOrigin.get(key).label() + ")");
        }));
        return lines;
    }

    @Override
    public String toString() {
        return String.join(System.lineSeparator(), dump());
    }
}
