package dev.outboxrelay.core.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * A module's declarations: a titled group of options, passthrough families and cross-option checks. Each
 * module publishes its own (e.g. {@code PollOptions.SET}); the CLI composes the sets a command needs into a
 * {@link ConfigSpec}. Help and the operator guide list options grouped by set title.
 */
public final class OptionSet {

    private final String title;
    private final List<Option<?>> options;
    private final List<Passthrough> passthroughs;
    private final List<ConfigCheck> checks;

    private OptionSet(Builder b) {
        this.title = b.title;
        this.options = List.copyOf(b.options);
        this.passthroughs = List.copyOf(b.passthroughs);
        this.checks = List.copyOf(b.checks);
    }

    /** Starts a set titled e.g. {@code Polling (--mode poll)}. */
    public static Builder builder(String title) {
        return new Builder(title);
    }

    /** A set of plain options without passthrough or checks. */
    public static OptionSet of(String title, Option<?>... options) {
        Builder b = builder(title);
        for (Option<?> o : options) {
            b.add(o);
        }
        return b.build();
    }

    public String title() {
        return title;
    }

    public List<Option<?>> options() {
        return options;
    }

    public List<Passthrough> passthroughs() {
        return passthroughs;
    }

    public List<ConfigCheck> checks() {
        return checks;
    }

    /** Builds an {@link OptionSet}. */
    public static final class Builder {
        private final String title;
        private final List<Option<?>> options = new ArrayList<>();
        private final List<Passthrough> passthroughs = new ArrayList<>();
        private final List<ConfigCheck> checks = new ArrayList<>();

        private Builder(String title) {
            this.title = Objects.requireNonNull(title, "title");
        }

        public Builder add(Option<?> option) {
            options.add(Objects.requireNonNull(option, "option"));
            return this;
        }

        /** Declares a passthrough family; its file option, if any, is added as an option too. */
        public Builder passthrough(Passthrough passthrough) {
            passthroughs.add(passthrough);
            passthrough.fileOption().ifPresent(options::add);
            return this;
        }

        public Builder check(ConfigCheck check) {
            checks.add(Objects.requireNonNull(check, "check"));
            return this;
        }

        public OptionSet build() {
            return new OptionSet(this);
        }
    }
}
