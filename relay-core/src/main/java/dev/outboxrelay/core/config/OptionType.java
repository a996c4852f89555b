package dev.outboxrelay.core.config;

import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.Locale;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * How an option's text (from a flag, the environment or a config file) becomes a typed value. Parsing throws
 * {@link IllegalArgumentException} whose message completes the sentence {@code --option: <message>}.
 *
 * @param <T> the value type
 */
public interface OptionType<T> {

    /** Converts the raw text; the message of a failure names what was expected and, unless secret, the text. */
    T parse(String raw);

    /** A short name for help and docs: {@code int}, {@code duration}, {@code mark|delete}, … */
    String label();

    /** True for secrets: values are masked everywhere and never echoed in error messages. */
    default boolean secret() {
        return false;
    }

    /** Free text. */
    static OptionType<String> string() {
        return Types.simple("string", raw -> raw);
    }

    /** A 32-bit integer. */
    static OptionType<Integer> integer() {
        return Types.simple("int", raw -> {
            try {
                return Integer.parseInt(raw.trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("expected an integer, was '" + raw + "'");
            }
        });
    }

    /** {@code true} or {@code false}. */
    static OptionType<Boolean> bool() {
        return Types.simple("boolean", raw -> {
            String v = raw.trim().toLowerCase(Locale.ROOT);
            if (v.equals("true") || v.equals("false")) {
                return Boolean.valueOf(v);
            }
            throw new IllegalArgumentException("expected true or false, was '" + raw + "'");
        });
    }

    /** A duration written with a unit: {@code 500ms}, {@code 5s}, {@code 10m}, {@code 2h}, {@code 7d}. */
    static OptionType<Duration> duration() {
        return Types.simple("duration", Types::parseDuration);
    }

    /** A file system path. */
    static OptionType<Path> path() {
        return Types.simple("path", raw -> {
            if (raw.isBlank()) {
                throw new IllegalArgumentException("expected a file path, was empty");
            }
            try {
                return Path.of(raw);
            } catch (InvalidPathException e) {
                throw new IllegalArgumentException("'" + raw + "' is not a valid path: " + e.getReason());
            }
        });
    }

    /** A secret; see {@link Password}. */
    static OptionType<Password> password() {
        return new Types.SecretType();
    }

    /** One of the constants of {@code type}, written in lower case with dashes ({@code ON_PUBLISH} is {@code on-publish}). */
    static <E extends Enum<E>> OptionType<E> enumeration(Class<E> type) {
        String choices = Arrays.stream(type.getEnumConstants()).map(Types::enumName)
                .collect(Collectors.joining("|"));
        return Types.simple(choices, raw -> {
            for (E e : type.getEnumConstants()) {
                if (Types.enumName(e).equalsIgnoreCase(raw.trim())) {
                    return e;
                }
            }
            throw new IllegalArgumentException("expected one of " + choices.replace("|", ", ") + ", was '" + raw + "'");
        });
    }

    /**
     * A domain type parsed by {@code parser}, e.g. {@code OutboxTable::parse}; the parser's
     * {@link IllegalArgumentException} message is reported as is.
     */
    static <T> OptionType<T> custom(String label, Function<String, T> parser) {
        return Types.simple(label, parser);
    }

    /** Lower-case, dash-separated name of an enum constant, as users write it. */
    static String nameOf(Enum<?> constant) {
        return Types.enumName(constant);
    }
}

/** Implementations behind the {@link OptionType} factories. */
final class Types {

    private static final Pattern DURATION = Pattern.compile("(\\d+)\\s*(ms|s|m|h|d)");

    private Types() {
    }

    static <T> OptionType<T> simple(String label, Function<String, T> parser) {
        return new OptionType<>() {
            @Override
            public T parse(String raw) {
                return parser.apply(raw);
            }

            @Override
            public String label() {
                return label;
            }
        };
    }

    static String enumName(Enum<?> e) {
        return e.name().toLowerCase(Locale.ROOT).replace('_', '-');
    }

    static Duration parseDuration(String raw) {
        Matcher m = DURATION.matcher(raw.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("expected a duration such as 500ms, 5s, 10m, 2h or 7d, was '" + raw + "'");
        }
        long n;
        try {
            n = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("duration '" + raw + "' is too large");
        }
        return switch (m.group(2)) {
            case "ms" -> Duration.ofMillis(n);
            case "s" -> Duration.ofSeconds(n);
            case "m" -> Duration.ofMinutes(n);
            case "h" -> Duration.ofHours(n);
            default -> Duration.ofDays(n);
        };
    }

    static final class SecretType implements OptionType<Password> {
        @Override
        public Password parse(String raw) {
            if (raw.isEmpty()) {
                throw new IllegalArgumentException("must not be empty");
            }
            return Password.of(raw);
        }

        @Override
        public String label() {
            return "secret";
        }

        @Override
        public boolean secret() {
            return true;
        }
    }
}
