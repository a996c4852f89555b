package dev.outboxrelay.cli;

import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.Validator;

/** Options of the CLI itself: general switches and those of {@code migrate} and {@code run}. */
public final class CliOptions {

    /** The sources {@code run} can start; each is served by a {@link dev.outboxrelay.core.SourceFactory}. */
    public enum Mode {
        /** Batched polling of unsent rows. */
        POLL,
        /** Change data capture from the WAL through Debezium. */
        CDC
    }

    public static final Option<Boolean> VERBOSE = Option.bool("verbose")
            .defaultValue("false")
            .doc("Log at DEBUG and print stack traces with errors.")
            .example("true")
            .build();

    public static final Option<Boolean> PRINT = Option.bool("print")
            .defaultValue("false")
            .doc("Print the SQL migrate would run, for a DBA to apply by hand, without connecting.")
            .example("true")
            .build();

    public static final Option<Mode> MODE = Option.enumeration("mode", Mode.class)
            .required()
            .doc("Which source reads the outbox: poll queries unsent rows, cdc streams the WAL.")
            .example("poll")
            .build();

    public static final Option<Integer> HTTP_PORT = Option.integer("http-port")
            .defaultValue("8080")
            .validate(Validator.between(0, 65535))
            .doc("Port of the health and metrics endpoint; 0 disables it.")
            .example("9100")
            .build();

    public static final Option<Boolean> DRY_RUN = Option.bool("dry-run")
            .defaultValue("false")
            .doc("Validate the configuration, print it with secrets masked, and exit without contacting anything.")
            .example("true")
            .build();

    /** Options every command has. */
    public static final OptionSet GENERAL = OptionSet.of("General", ConfigSpec.CONFIG, VERBOSE);

    /** {@code migrate}'s own options; the connection comes from {@code DatabaseOptions.CONNECTION}. */
    public static final OptionSet MIGRATE = OptionSet.of("Schema",
            dev.outboxrelay.core.config.DatabaseOptions.PUBLICATION, PRINT);

    /** {@code run}'s own options. */
    public static final OptionSet RUN = OptionSet.of("Daemon", MODE, HTTP_PORT, DRY_RUN);

    private CliOptions() {
    }
}
