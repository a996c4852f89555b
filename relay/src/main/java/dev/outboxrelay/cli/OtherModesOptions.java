package dev.outboxrelay.cli;

import dev.outboxrelay.core.SourceFactory;
import dev.outboxrelay.core.config.ConfigCheck;
import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.OptionType;
import dev.outboxrelay.core.config.Passthrough;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.core.config.ValueSource;
import java.util.Collections;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Refuses, before anything is contacted, an option that only another mode's source reads (e.g.
 * {@code --batch-size} with {@code --mode cdc}, {@code --debezium.*} with {@code --mode poll}): an option
 * accepted and then silently ignored is a setting the operator believes in and does not have. Options of the
 * common sets mean the same in every mode and are always accepted.
 */
final class OtherModesOptions implements ConfigCheck {

    private final List<OptionSet> common;
    private final Map<String, SourceFactory> factories;

    OtherModesOptions(List<OptionSet> common, Map<String, SourceFactory> factories) {
        this.common = List.copyOf(common);
        this.factories = Map.copyOf(factories);
    }

    @Override
    public void check(RelayConfig config, List<String> problems) {
        String mode = config.find(CliOptions.MODE).map(OptionType::nameOf).orElse(null);
        SourceFactory own = mode == null ? null : factories.get(mode);
        if (own == null) {
            return; // no mode, or one without a source: reported elsewhere
        }
        Set<Option<?>> allowed = Collections.newSetFromMap(new IdentityHashMap<>());
        Set<String> allowedPrefixes = new HashSet<>();
        for (OptionSet set : concat(common, own.options())) {
            allowed.addAll(set.options());
            set.passthroughs().forEach(p -> allowedPrefixes.add(p.prefix()));
        }
        for (SourceFactory other : factories.values()) {
            if (other == own) {
                continue;
            }
            for (Option<?> o : other.options().options()) {
                ValueSource source = config.source(o).orElse(ValueSource.DEFAULT);
                if (!allowed.contains(o) && source != ValueSource.DEFAULT) {
                    problems.add(o.flag() + ": used only with --mode " + other.mode() + "; --mode " + mode
                            + " does not read it (remove it from the " + source.label() + ")");
                }
            }
            for (Passthrough p : other.options().passthroughs()) {
                if (!allowedPrefixes.contains(p.prefix()) && !config.passthrough(p.prefix()).isEmpty()) {
                    problems.add("--" + p.prefix() + ".*: used only with --mode " + other.mode() + "; --mode "
                            + mode + " does not read it (remove it)");
                }
            }
        }
    }

    private static List<OptionSet> concat(List<OptionSet> sets, OptionSet one) {
        List<OptionSet> all = new java.util.ArrayList<>(sets);
        all.add(one);
        return all;
    }
}
