package dev.outboxrelay.core.config;

import java.util.List;

/** The configuration is invalid. Carries every problem found, one line each, so users fix them in one go. */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final transient List<String> problems;

    public ConfigException(List<String> problems) {
        super(String.join(System.lineSeparator(), problems));
        if (problems.isEmpty()) {
            throw new IllegalArgumentException("a ConfigException needs at least one problem");
        }
        this.problems = List.copyOf(problems);
    }

    /** One line per problem, in declaration order, e.g. {@code --batch-size: must be between 1 and 100000, was 0}. */
    public List<String> problems() {
        return problems;
    }
}
