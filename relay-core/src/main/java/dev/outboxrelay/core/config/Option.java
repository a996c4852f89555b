package dev.outboxrelay.core.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * One configuration option, declared once: its name, type, default, constraint, documentation and example.
 * Flag ({@code --batch-size}), environment variable ({@code RELAY_BATCH_SIZE}), config file key
 * ({@code batch-size}), help text and the operator guide are all derived from the declaration.
 *
 * <p>Declare options as {@code static final} constants of a module's options class and read them back typed
 * with {@link RelayConfig#get(Option)}. Instances are compared by identity: two sets may share one constant.
 *
 * @param <T> the parsed value type
 */
public final class Option<T> {

    private static final Pattern NAME = Pattern.compile("[a-z][a-z0-9]*(-[a-z0-9]+)*");

    private final String name;
    private final OptionType<T> type;
    private final String defaultValue;
    private final boolean required;
    private final Validator<T> validator;
    private final String doc;
    private final String example;
    private final String environmentOnlyHint;
    private final UnaryOperator<String> shownAs;

    private Option(Builder<T> b) {
        this.name = b.name;
        this.type = b.type;
        this.defaultValue = b.defaultValue;
        this.required = b.required;
        this.validator = b.validator;
        this.doc = Objects.requireNonNull(b.doc, () -> "option " + b.name + " has no doc text");
        this.example = b.example;
        this.environmentOnlyHint = b.environmentOnlyHint;
        this.shownAs = b.shownAs;
        if (defaultValue != null) {
            // A broken default is a programming error: fail when the declaring class loads, not at startup.
            T parsed = type.parse(defaultValue);
            String problem = validator.problem(parsed);
            if (problem != null) {
                throw new IllegalArgumentException("default of " + name + " " + problem);
            }
        }
        if (required && defaultValue != null) {
            throw new IllegalArgumentException("option " + name + " is required and has a default");
        }
    }

    /** Starts a declaration; {@code name} is lower-case kebab, e.g. {@code db-url}. */
    public static <T> Builder<T> builder(String name, OptionType<T> type) {
        return new Builder<>(name, type);
    }

    /** Shorthand for {@code builder(name, OptionType.string())}. */
    public static Builder<String> string(String name) {
        return builder(name, OptionType.string());
    }

    /** Shorthand for {@code builder(name, OptionType.integer())}. */
    public static Builder<Integer> integer(String name) {
        return builder(name, OptionType.integer());
    }

    /** Shorthand for {@code builder(name, OptionType.duration())}. */
    public static Builder<Duration> duration(String name) {
        return builder(name, OptionType.duration());
    }

    /** Shorthand for {@code builder(name, OptionType.bool())}. */
    public static Builder<Boolean> bool(String name) {
        return builder(name, OptionType.bool());
    }

    /** Shorthand for {@code builder(name, OptionType.path())}. */
    public static Builder<Path> path(String name) {
        return builder(name, OptionType.path());
    }

    /** Shorthand for {@code builder(name, OptionType.password())}. */
    public static Builder<Password> password(String name) {
        return builder(name, OptionType.password());
    }

    /** Shorthand for {@code builder(name, OptionType.enumeration(type))}. */
    public static <E extends Enum<E>> Builder<E> enumeration(String name, Class<E> type) {
        return builder(name, OptionType.enumeration(type));
    }

    /** The kebab-case name, also the config file key. */
    public String name() {
        return name;
    }

    /** {@code --name}. */
    public String flag() {
        return "--" + name;
    }

    /** {@code RELAY_NAME} in upper snake case. */
    public String envVar() {
        return envVarFor(name);
    }

    /** The environment variable an option name maps to. */
    public static String envVarFor(String name) {
        return "RELAY_" + name.toUpperCase(Locale.ROOT).replace('-', '_').replace('.', '_');
    }

    /** How problems name this option: the flag, or the environment variable when there is no flag. */
    public String displayName() {
        return environmentOnly() ? envVar() : flag();
    }

    public OptionType<T> type() {
        return type;
    }

    /** The default as text, or {@code null} when there is none. */
    public String defaultValue() {
        return defaultValue;
    }

    /**
     * The default, parsed: what a programmatic builder starts from, so a default is written down once, here.
     *
     * @throws IllegalStateException when the option has no default
     */
    public T parsedDefault() {
        if (defaultValue == null) {
            throw new IllegalStateException("option " + name + " has no default");
        }
        return type.parse(defaultValue);
    }

    public boolean required() {
        return required;
    }

    public Validator<T> validator() {
        return validator;
    }

    public String doc() {
        return doc;
    }

    /** An example value, or {@code null}. */
    public String example() {
        return example;
    }

    public boolean secret() {
        return type.secret();
    }

    /** The text as dumps and problems may show it: secret parts masked (e.g. a password in a URL). */
    public String shown(String text) {
        return secret() ? Password.HIDDEN : shownAs.apply(text);
    }

    /** True when the value may come only from the environment (never a flag or the config file). */
    public boolean environmentOnly() {
        return environmentOnlyHint != null;
    }

    /** For environment-only options: how to set the value instead, e.g. {@code set RELAY_DB_PASSWORD or …}. */
    public String environmentOnlyHint() {
        return environmentOnlyHint;
    }

    @Override
    public String toString() {
        return flag();
    }

    /**
     * Builds an {@link Option}.
     *
     * @param <T> the parsed value type
     */
    public static final class Builder<T> {
        private final String name;
        private final OptionType<T> type;
        private String defaultValue;
        private boolean required;
        private Validator<T> validator = Validator.none();
        private String doc;
        private String example;
        private String environmentOnlyHint;
        private UnaryOperator<String> shownAs = UnaryOperator.identity();

        private Builder(String name, OptionType<T> type) {
            if (!NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("option name '" + name + "' must be lower-case kebab-case");
            }
            this.name = name;
            this.type = Objects.requireNonNull(type, "type");
        }

        /** The value used when no source sets one, written as a user would write it. */
        public Builder<T> defaultValue(String value) {
            this.defaultValue = value;
            return this;
        }

        /** Validation fails when no source sets the option. */
        public Builder<T> required() {
            this.required = true;
            return this;
        }

        public Builder<T> validate(Validator<T> validator) {
            this.validator = Objects.requireNonNull(validator, "validator");
            return this;
        }

        /** One or two sentences for help and the operator guide. */
        public Builder<T> doc(String doc) {
            this.doc = doc;
            return this;
        }

        public Builder<T> example(String example) {
            this.example = example;
            return this;
        }

        /**
         * Accept the value only from the environment: a flag or config file key is rejected with
         * {@code hint} (e.g. {@code set RELAY_DB_PASSWORD or use --db-password-file FILE}). For secrets, which
         * a command line would expose to {@code ps} and shell history.
         */
        public Builder<T> environmentOnly(String hint) {
            this.environmentOnlyHint = Objects.requireNonNull(hint, "hint");
            return this;
        }

        /** How dumps and problems show a value that carries secret parts, e.g. a URL with a password. */
        public Builder<T> shownAs(UnaryOperator<String> mask) {
            this.shownAs = Objects.requireNonNull(mask, "mask");
            return this;
        }

        public Option<T> build() {
            return new Option<>(this);
        }
    }
}
