package dev.outboxrelay.core.config;

import java.util.List;

/**
 * A rule spanning options or needing the parsed values, such as "the producer passthrough must not weaken
 * delivery". Runs after every option was parsed; options that failed to parse are absent from the config,
 * so checks use {@link RelayConfig#find(Option)} and skip what is missing. Must not contact anything.
 */
@FunctionalInterface
public interface ConfigCheck {

    /** Adds one line per problem, each starting with the option it concerns (e.g. {@code --kafka.acks: …}). */
    void check(RelayConfig config, List<String> problems);
}
