package dev.outboxrelay.core.config;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * A family of free-form properties handed to a library unchanged: {@code --kafka.<property>=value} for the
 * producer, {@code --debezium.<property>=value} for the CDC engine. Values come from flags, from environment
 * variables {@code RELAY_<PREFIX>_<PROPERTY>} (dots as underscores), from config file keys
 * {@code <prefix>.<property>}, and optionally from a properties file named by {@link #file()}, in that order of
 * precedence. Keys that look secret ({@link dev.outboxrelay.core.publish.Secrets}) are masked.
 *
 * @param prefix the prefix without dot, e.g. {@code kafka}
 * @param doc    what the properties configure
 * @param example an example flag, e.g. {@code --kafka.compression.type=zstd}
 * @param file   the option naming a properties file of the same properties (without prefix), or {@code null}
 */
public record Passthrough(String prefix, String doc, String example, Option<Path> file) {

    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9-]*");

    public Passthrough {
        if (!PREFIX.matcher(prefix).matches()) {
            throw new IllegalArgumentException("passthrough prefix '" + prefix + "' must be a lower-case word");
        }
        Objects.requireNonNull(doc, "doc");
        Objects.requireNonNull(example, "example");
    }

    /** {@code --kafka.}: how flags of this family start. */
    public String flagPrefix() {
        return "--" + prefix + ".";
    }

    /** {@code RELAY_KAFKA_}: how environment variables of this family start. */
    public String envPrefix() {
        return Option.envVarFor(prefix) + "_";
    }

    /** {@code LINGER_MS} to {@code linger.ms}. */
    static String propertyOf(String envSuffix) {
        return envSuffix.toLowerCase(Locale.ROOT).replace('_', '.');
    }

    /** {@code linger.ms} to {@code RELAY_KAFKA_LINGER_MS}. */
    public String envVarOf(String property) {
        return envPrefix() + property.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
    }

    public Optional<Option<Path>> fileOption() {
        return Optional.ofNullable(file);
    }
}
