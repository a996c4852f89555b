package dev.outboxrelay.cli;

import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.InstanceOptions;
import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.core.config.Validator;
import java.time.Duration;
import java.util.List;

/** Options of the CLI itself: general switches and those of {@code migrate} and {@code run}. */
public final class CliOptions {

    /** The sources {@code run} can start; each is served by a {@link dev.outboxrelay.core.SourceFactory}. */
    public enum Mode {
        /** Batched polling of unsent rows. */
        POLL,
        /** Change data capture from the WAL through Debezium. */
        CDC
    }

    /** Log line formats. */
    public enum LogFormat {
        /** One human-readable line per event. */
        TEXT,
        /** One JSON object per line, for log aggregators. */
        JSON
    }

    public static final Option<Boolean> VERBOSE = Option.bool("verbose")
            .defaultValue("false")
            .doc("Log at DEBUG and print stack traces with errors.")
            .example("true")
            .build();

    public static final Option<LogFormat> LOG_FORMAT = Option.enumeration("log-format", LogFormat.class)
            .defaultValue("text")
            .doc("Log format on stderr: text, or json (one object per line: ISO-8601 @timestamp, level, thread, logger,"
                    + " message, relay, mode, topic).")
            .example("json")
            .build();

    public static final Option<Boolean> PRINT = Option.bool("print")
            .defaultValue("false")
            .doc("Print the SQL migrate would run, for a DBA to apply by hand, without connecting.")
            .example("true")
            .build();

    public static final Option<Boolean> ADOPT = Option.bool("adopt")
            .defaultValue("false")
            .doc("Adopt an existing table (--table, read through --table-format and --column) instead of creating"
                    + " one: add the relay's bookkeeping columns, indexes and publication without rewriting it; rows"
                    + " already there count as sent. With --print, the SQL and its locking cost for a DBA.")
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

    public static final Option<String> HTTP_HOST = Option.string("http-host")
            .defaultValue("0.0.0.0")
            .validate(Validator.notBlank())
            .doc("Address the health and metrics endpoint listens on.")
            .example("127.0.0.1")
            .build();

    public static final Option<Duration> SHUTDOWN_TIMEOUT = Option.duration("shutdown-timeout")
            .defaultValue("30s")
            .validate(Validator.atLeast(Duration.ofSeconds(1), "1s"))
            .doc("On SIGTERM: how long to wait for the in-flight batch to be acknowledged and marked before"
                    + " exiting anyway (exit 1; those rows are published again by the next relay).")
            .example("60s")
            .build();

    public static final Option<Duration> PROBE_INTERVAL = Option.duration("probe-interval")
            .defaultValue("5s")
            .validate(Validator.atLeast(Duration.ofMillis(100), "100ms"))
            .doc("How often the daemon checks PostgreSQL and Kafka for /health/ready and samples the backlog,"
                    + " oldest-row age, dead-letter and WAL gauges (one cheap query each time, not per scrape).")
            .example("15s")
            .build();

    public static final Option<Integer> WARMUP_EVENTS = Option.integer("warmup-events")
            .defaultValue("20000")
            .validate(Validator.between(0, 10_000_000))
            .doc("Synthetic events run through the delivery pipeline at start, before the source starts (nothing is"
                    + " sent to Kafka or written to the database): the pipeline's code is compiled before the first"
                    + " real load, so a relay that has just started or taken over delivers its first events sooner."
                    + " 0 skips it.")
            .example("0")
            .build();

    public static final Option<Boolean> DRY_RUN = Option.bool("dry-run")
            .defaultValue("false")
            .doc("Validate the configuration, print it with secrets masked, and exit without contacting anything.")
            .example("true")
            .build();

    /** Options every command has. */
    public static final OptionSet GENERAL = OptionSet.of("General", ConfigSpec.CONFIG, VERBOSE, LOG_FORMAT);

    /** {@code migrate}'s own options; the connection comes from {@code DatabaseOptions.CONNECTION}. */
    public static final OptionSet MIGRATE = OptionSet.builder("Schema")
            .add(dev.outboxrelay.core.config.DatabaseOptions.PUBLICATION).add(PRINT).add(ADOPT)
            .check(CliOptions::adoptsWhatItDoesNotCreate)
            .build();

    /** {@code migrate} creates only the relay's own table; any other layout is adopted. */
    private static void adoptsWhatItDoesNotCreate(RelayConfig config, List<String> problems) {
        if (!config.find(ADOPT).orElse(true) && !dev.outboxrelay.core.config.DatabaseOptions.layout(config).isRelay()) {
            problems.add("--table-format/--column: migrate creates only the relay's own table layout; adopt an"
                    + " existing table with migrate --adopt (add --print to see its SQL first)");
        }
    }

    /** {@code run}'s own options. */
    public static final OptionSet RUN = OptionSet.of("Daemon", MODE, HTTP_PORT, HTTP_HOST,
            SHUTDOWN_TIMEOUT, PROBE_INTERVAL, InstanceOptions.STANDBY_INTERVAL, WARMUP_EVENTS, DRY_RUN);

    private CliOptions() {
    }
}
