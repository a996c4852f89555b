package dev.outboxrelay.testkit.contract;

import dev.outboxrelay.testkit.TestDatabase;
import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * The source a contract suite ({@link RelayContract}, {@link TopicFailureContract}) runs: its {@code --mode}, how
 * to create its schema, and the flags it adds for tests. A source module declares it once and every suite starts
 * it through the mode's factory ({@link FactoryRelays}).
 *
 * @param mode      the {@code --mode} of the source
 * @param schema    creates the outbox table (and whatever else the source needs) in a database
 * @param testFlags flags the module adds for tests (faster timers, a slot per database), CLI names without
 *                  dashes; a suite's own options win over them
 */
public record ContractSource(String mode, Schema schema, Function<TestDatabase, Map<String, String>> testFlags) {

    /** Creates the outbox table {@code table} in {@code database}. */
    @FunctionalInterface
    public interface Schema {
        void migrate(TestDatabase database, String table) throws Exception;
    }

    public ContractSource {
        Objects.requireNonNull(mode, "mode");
        Objects.requireNonNull(schema, "schema");
        Objects.requireNonNull(testFlags, "testFlags");
    }

    /** Starts one relay through its factory and returns once it runs (it need not have published yet). */
    RelayHandle start(RelayEnvironment env, Map<String, String> options) {
        Map<String, String> flags = new HashMap<>(testFlags.apply(env.database()));
        flags.putAll(options);
        return FactoryRelays.start(mode, env, flags);
    }
}
