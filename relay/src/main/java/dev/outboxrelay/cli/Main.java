package dev.outboxrelay.cli;

import dev.outboxrelay.core.SourceFactory;
import java.io.PrintStream;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.ServiceLoader;

/**
 * Entry point of {@code outbox-relay.jar}. Exit codes: {@value #OK} success, {@value #FAILURE} runtime failure
 * (database unreachable, migration refused, …), {@value #USAGE} usage or configuration error, reported before
 * anything is contacted.
 */
public final class Main {

    /** Success. */
    public static final int OK = 0;
    /** The command was valid but failed at run time. */
    public static final int FAILURE = 1;
    /** Bad flags or configuration; nothing was contacted. */
    public static final int USAGE = 2;

    private Main() {
    }

    public static void main(String[] args) {
        System.exit(run(args, System.getenv(), System.out, System.err));
    }

    /**
     * Runs one command in-process and returns its exit code, for tests and embedding.
     *
     * @param env stands in for the process environment ({@code RELAY_*} variables)
     */
    public static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        return new Cli(sourceFactories(), env, out, err).execute(args);
    }

    /** The sources on the class path, keyed by mode; see {@link SourceFactory}. */
    static Map<String, SourceFactory> sourceFactories() {
        Map<String, SourceFactory> byMode = new LinkedHashMap<>();
        for (SourceFactory f : ServiceLoader.load(SourceFactory.class, Main.class.getClassLoader())) {
            SourceFactory previous = byMode.putIfAbsent(f.mode(), f);
            if (previous != null) {
                throw new IllegalStateException("two source factories for --mode " + f.mode() + ": "
                        + previous.getClass().getName() + " and " + f.getClass().getName());
            }
        }
        return byMode;
    }
}
