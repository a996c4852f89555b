package dev.outboxrelay.core.config;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * A constraint on a parsed value. {@link #problem} returns {@code null} when the value is fine, otherwise the
 * rule it breaks ({@code must be between 1 and 100000}); the resolver appends {@code , was <value>} unless the
 * option is secret.
 *
 * @param <T> the value type
 */
@FunctionalInterface
public interface Validator<T> {

    /** {@code null} when {@code value} is acceptable, otherwise the rule it breaks. */
    String problem(T value);

    /** Accepts everything. */
    static <T> Validator<T> none() {
        return value -> null;
    }

    /** An integer in {@code [min, max]}. */
    static Validator<Integer> between(int min, int max) {
        return v -> v >= min && v <= max ? null : "must be between " + min + " and " + max;
    }

    /** A duration of at least {@code min}, written as in the message (e.g. {@code 10ms}). */
    static Validator<Duration> atLeast(Duration min, String minText) {
        return v -> v.compareTo(min) >= 0 ? null : "must be at least " + minText;
    }

    /** Text with at least one non-blank character. */
    static Validator<String> notBlank() {
        return v -> v.isBlank() ? "must not be empty" : null;
    }

    /** A path naming a readable regular file. Checked up front so a typo fails before anything is contacted. */
    static Validator<Path> readableFile() {
        return p -> Files.isRegularFile(p) && Files.isReadable(p) ? null : "cannot read file";
    }
}
