package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.testkit.ItLogs;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The set-up the jar tests repeat, in one call: a relay of one mode on a fresh database with the default table
 * migrated, started, and awaited until it is <em>publishing</em> (holding the table's lock; a standby is ready
 * too). Its log starts empty, in this run's {@link ItLogs} file of its name, so what a test reads there is its own.
 *
 * <pre>{@code
 * try (PublishingRelay r = PublishingRelay.of("cloudevents", "cdc").kafka(kafka)
 *         .args("--topic-template", topic).start()) {
 *     new OutboxWriter(r.database, "public.outbox").insert(rows);
 * }
 * }</pre>
 *
 * <p>Unless the arguments name them, it passes {@code --mode} and, in CDC, {@code --slot-name} (the database's
 * name: slots are per server, database names are unique). The relay name stays the default unless given: locks
 * and state are per database. {@link #close()}
 * kills the relay and drops the database it created (which drops a slot too), not one it was given.
 */
final class PublishingRelay implements AutoCloseable {

    /** How long a relay may take from its start to publishing on a loaded 2-core machine. */
    static final Duration DEFAULT_BOUND = Duration.ofSeconds(90);

    final String mode;
    final TestDatabase database;
    final RelayProcess relay;
    private final List<String> arguments;
    private final boolean ownsDatabase;
    private final Duration bound;

    private PublishingRelay(String mode, TestDatabase database, RelayProcess relay, List<String> arguments,
                            boolean ownsDatabase, Duration bound) {
        this.mode = mode;
        this.arguments = List.copyOf(arguments);
        this.database = database;
        this.relay = relay;
        this.ownsDatabase = ownsDatabase;
        this.bound = bound;
    }

    /** A relay of {@code mode} whose log is named {@code name}, on a database named after it. */
    static Builder of(String name, String mode) {
        return new Builder(name, mode);
    }

    /**
     * Starts every relay first and then waits for each, so their start-ups overlap (what a test of both modes side
     * by side wants); if one fails, all are closed.
     */
    static List<PublishingRelay> startAll(List<Builder> builders) throws Exception {
        List<PublishingRelay> started = new ArrayList<>();
        try {
            for (Builder b : builders) {
                started.add(b.launch());
            }
            for (PublishingRelay r : started) {
                r.awaitPublishing();
            }
            return started;
        } catch (Exception | Error e) {
            for (PublishingRelay r : started) {
                r.close();
            }
            throw e;
        }
    }

    /** Waits for publishing within the builder's bound; closes this fixture (and fails) if it does not come. */
    private PublishingRelay awaitPublishing() throws Exception {
        try {
            relay.awaitPublishing(bound);
            return this;
        } catch (RuntimeException | Error e) {
            close();
            throw e;
        }
    }

    /** The relay options this one was started with (mode and slot included): a second instance of it uses them. */
    String[] arguments() {
        return arguments.toArray(String[]::new);
    }

    /** The slot name the fixture passes in CDC when the arguments name none. */
    static String slotOf(TestDatabase database) {
        return database.name();
    }

    @Override
    public void close() throws Exception {
        try {
            relay.close();
        } finally {
            if (ownsDatabase) {
                database.drop();
            }
        }
    }

    /** What differs between the tests: everything has a default but the name and the mode. */
    static final class Builder {
        private final String name;
        private final String mode;
        private TestDatabase database;
        private String user;
        private String bootstrap;
        private final Map<String, String> env = new HashMap<>();
        private final List<String> args = new ArrayList<>();
        private List<String> jvmOptions = List.of();
        private boolean testClasses;
        private Duration bound = DEFAULT_BOUND;

        private Builder(String name, String mode) {
            if (!mode.equals("poll") && !mode.equals("cdc")) {
                throw new IllegalArgumentException("mode must be poll or cdc: " + mode);
            }
            this.name = name;
            this.mode = mode;
        }

        /** The shared or a test's own in-process broker. */
        Builder kafka(TestKafka kafka) {
            return bootstrap(kafka.bootstrapServers());
        }

        /** A broker at {@code servers}, e.g. one in its own process. */
        Builder bootstrap(String servers) {
            this.bootstrap = servers;
            return this;
        }

        /** An existing database instead of a fresh one (e.g. a second relay's); {@link #close()} leaves it. */
        Builder on(TestDatabase existing) {
            this.database = existing;
            return this;
        }

        /**
         * Runs as {@code role} instead of the test server's relay role; its password then comes from what the test
         * gives ({@link #env}, or {@code --db-password-file} in {@link #args}), not from the fixture.
         */
        Builder as(String role) {
            this.user = role;
            return this;
        }

        /** The relay's own options, after the fixture's defaults. */
        Builder args(String... more) {
            args.addAll(List.of(more));
            return this;
        }

        /** Environment variables of the relay process (the relay role's password is set unless {@link #as}). */
        Builder env(Map<String, String> more) {
            env.putAll(more);
            return this;
        }

        /** JVM options before {@code -jar}, e.g. heap flags or a fault point's {@code -D}. */
        Builder jvm(List<String> options) {
            this.jvmOptions = List.copyOf(options);
            return this;
        }

        /** This module's test classes on the relay's class path too (fault-injecting interceptors). */
        Builder withTestClasses() {
            this.testClasses = true;
            return this;
        }

        /** How long to wait for publishing ({@link #DEFAULT_BOUND} unless given). */
        Builder within(Duration limit) {
            this.bound = limit;
            return this;
        }

        /** Creates what is missing, starts the relay and returns once it publishes; fails with its log's path. */
        PublishingRelay start() throws Exception {
            return launch().awaitPublishing();
        }

        /** Creates what is missing and starts the relay, without waiting: {@link #startAll} starts several at once. */
        PublishingRelay launch() throws Exception {
            assertThat(RelayProcess.JAR).as("the shaded jar is built in package, before the integration tests")
                    .exists();
            if (bootstrap == null) {
                throw new IllegalStateException("PublishingRelay " + name + ": no broker given (kafka or bootstrap)");
            }
            boolean owns = database == null;
            TestDatabase db = owns ? MigratedDatabases.create(name) : database;
            try {
                Files.deleteIfExists(ItLogs.file(name));
                Map<String, String> all = new HashMap<>();
                if (user == null) {
                    all.put("RELAY_DB_PASSWORD", db.relayPassword());
                }
                all.putAll(env);
                List<String> launch = testClasses ? RelayProcess.jarWithTestClasses(jvmOptions)
                        : RelayProcess.jar(jvmOptions);
                List<String> arguments = arguments(db);
                RelayProcess relay = RelayProcess.runAs(launch, name, db.jdbcUrl(),
                        user == null ? db.relayUser() : user, bootstrap, all,
                        arguments.toArray(String[]::new));
                return new PublishingRelay(mode, db, relay, arguments, owns, bound);
            } catch (Exception | Error e) {
                if (owns) {
                    db.drop();
                }
                throw e;
            }
        }

        private List<String> arguments(TestDatabase db) {
            List<String> all = new ArrayList<>();
            if (!args.contains("--mode")) {
                all.addAll(List.of("--mode", mode));
            }
            if (mode.equals("cdc") && !args.contains("--slot-name")) {
                all.addAll(List.of("--slot-name", slotOf(db)));
            }
            all.addAll(args);
            return all;
        }
    }
}
