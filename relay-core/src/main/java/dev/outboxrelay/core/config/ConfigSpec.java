package dev.outboxrelay.core.config;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The options of one command, composed from the {@link OptionSet}s of the modules it uses. Resolves raw
 * inputs into a validated, immutable {@link RelayConfig}, with the precedence
 * command line &gt; environment {@code RELAY_<OPTION>} &gt; {@code --config} file &gt; default.
 *
 * <p>Sets may share option constants (by identity); two different options with one name are a programming
 * error and fail at composition.
 */
public final class ConfigSpec {

    /** {@code --config FILE}: the properties file read as the third source; include it in a command's sets. */
    public static final Option<Path> CONFIG = Option.path("config")
            .validate(Validator.readableFile())
            .doc("Java properties file with option names as keys (e.g. batch-size=500, kafka.linger.ms=10)."
                    + " Flags and RELAY_* environment variables override it.")
            .example("/etc/outbox-relay/relay.properties")
            .build();

    private final List<OptionSet> sets;
    private final Map<String, Option<?>> options;
    private final Map<String, Passthrough> passthroughs;
    private final Set<String> tolerated;

    private ConfigSpec(List<OptionSet> sets, Set<String> tolerated) {
        this.sets = List.copyOf(sets);
        Map<String, Option<?>> byName = new LinkedHashMap<>();
        Map<String, Passthrough> byPrefix = new LinkedHashMap<>();
        for (OptionSet set : sets) {
            for (Option<?> o : set.options()) {
                Option<?> previous = byName.putIfAbsent(o.name(), o);
                if (previous != null && previous != o) {
                    throw new IllegalArgumentException("option " + o.name() + " is declared twice (in '"
                            + set.title() + "' and elsewhere); share one constant instead");
                }
            }
            for (Passthrough p : set.passthroughs()) {
                Passthrough previous = byPrefix.putIfAbsent(p.prefix(), p);
                if (previous != null && !previous.equals(p)) {
                    throw new IllegalArgumentException("passthrough " + p.prefix() + " is declared twice");
                }
            }
        }
        this.options = Map.copyOf(byName);
        this.passthroughs = Map.copyOf(byPrefix);
        this.tolerated = Set.copyOf(tolerated);
    }

    /** Composes the given sets, in order. */
    public static ConfigSpec of(List<OptionSet> sets) {
        return new ConfigSpec(sets, Set.of());
    }

    /** Composes the given sets, in order. */
    public static ConfigSpec of(OptionSet... sets) {
        return of(List.of(sets));
    }

    /**
     * A spec that ignores (instead of rejecting) these config file keys, typically the options of the other
     * commands, so one file can serve {@code run} and {@code migrate}.
     */
    public ConfigSpec tolerating(Collection<String> configFileKeys) {
        return new ConfigSpec(sets, Set.copyOf(configFileKeys));
    }

    public List<OptionSet> sets() {
        return sets;
    }

    /** Every option, in declaration order, each once. */
    public List<Option<?>> options() {
        List<Option<?>> result = new ArrayList<>();
        Set<Option<?>> seen = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (OptionSet set : sets) {
            for (Option<?> o : set.options()) {
                if (seen.add(o)) {
                    result.add(o);
                }
            }
        }
        return result;
    }

    public Optional<Option<?>> option(String name) {
        return Optional.ofNullable(options.get(name));
    }

    /** Every passthrough family, in declaration order. */
    public List<Passthrough> passthroughs() {
        return sets.stream().flatMap(s -> s.passthroughs().stream()).distinct().toList();
    }

    public Optional<Passthrough> passthrough(String prefix) {
        return Optional.ofNullable(passthroughs.get(prefix));
    }

    List<ConfigCheck> checks() {
        return sets.stream().flatMap(s -> s.checks().stream()).distinct().toList();
    }

    boolean tolerates(String configFileKey) {
        return tolerated.contains(configFileKey);
    }

    /**
     * Parses and validates everything, contacting nothing.
     *
     * @throws ConfigException listing every problem found
     */
    public RelayConfig resolve(ConfigSources sources) {
        return new Resolver(this, sources).resolve();
    }
}
