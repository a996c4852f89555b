package dev.outboxrelay.poll;

import dev.outboxrelay.core.config.InstanceOptions;
import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.Validator;
import dev.outboxrelay.core.delivery.OnPoison;
import java.time.Duration;

/** Options of {@code run --mode poll}, declared once; help, config files and the environment derive from them. */
public final class PollOptions {

    public static final Option<Integer> BATCH_SIZE = Option.integer("batch-size")
            .defaultValue("1000")
            .validate(Validator.between(1, 100_000))
            .doc("Rows fetched and published per batch; also bounds the duplicates a crash can cause.")
            .example("500")
            .build();

    public static final Option<Duration> POLL_INTERVAL = Option.duration("poll-interval")
            .defaultValue("500ms")
            .validate(Validator.atLeast(Duration.ofMillis(10), "10ms"))
            .doc("Fallback poll period; inserts wake the relay at once through LISTEN/NOTIFY.")
            .example("1s")
            .build();

    public static final Option<Integer> PIPELINE_DEPTH = Option.integer("pipeline-depth")
            .defaultValue("3")
            .validate(Validator.between(1, 16))
            .doc("Batches in flight at once, from fetch until marked (the next is fetched and sent while Kafka"
                    + " acknowledges and the marker marks the previous).")
            .example("1")
            .build();

    public static final Option<OnPoison> ON_POISON = Option.enumeration("on-poison",
                    OnPoison.class)
            .defaultValue("block")
            .doc("After a row is dead-lettered: block keeps later events of its key waiting (order), skip lets them flow.")
            .example("skip")
            .build();

    /** Shared with the CDC engine lock of the daemon, so one setting serves both modes. */
    public static final Option<Duration> STANDBY_INTERVAL = InstanceOptions.STANDBY_INTERVAL;

    /** The poll source's options. */
    public static final OptionSet SET = OptionSet.of("Polling (--mode poll)", BATCH_SIZE, POLL_INTERVAL,
            PIPELINE_DEPTH, STANDBY_INTERVAL,
            InstanceOptions.RELAY_NAME);

    private PollOptions() {
    }
}
