package dev.outboxrelay.verify;

import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.OptionType;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.Passthrough;
import dev.outboxrelay.core.config.Validator;
import java.time.Duration;

/**
 * Options of {@code verify}. Connection, table, bootstrap servers and the topic template are the ones
 * {@code run} uses (shared constants), so one config file serves both.
 */
public final class VerifyOptions {

    public static final Option<Duration> SINCE = Option.duration("since")
            .defaultValue("24h")
            .validate(Validator.atLeast(Duration.ofSeconds(1), "1s"))
            .doc("Check the outbox rows created within this period (by created_at), and the topic records"
                    + " written since then.")
            .example("2h")
            .build();

    public static final Option<Boolean> JSON = Option.bool("json")
            .defaultValue("false")
            .doc("Print the report as JSON on stdout, with every lost and duplicated id.")
            .example("true")
            .build();

    /** Kafka's isolation levels, by their Kafka names. */
    public static final String READ_COMMITTED = "read_committed";
    public static final String READ_UNCOMMITTED = "read_uncommitted";

    public static final Option<String> ISOLATION = Option.builder("isolation",
                    OptionType.custom(READ_COMMITTED + "|" + READ_UNCOMMITTED, VerifyOptions::isolation))
            .defaultValue(READ_UNCOMMITTED)
            .doc("How the topics are read. read_uncommitted: what every consumer sees; duplicates are reported, not"
                    + " a failure (at-least-once delivers some). read_committed: what a read_committed consumer sees;"
                    + " for a relay with --delivery exactly-once, where any duplicate is a failure.")
            .example(READ_COMMITTED)
            .build();

    /**
     * {@code --kafka.<property>}: the same family and {@code --kafka-config-file} as {@code run}, so one config
     * file serves both, but verify's consumer takes only the connection security settings from it.
     */
    public static final Passthrough KAFKA = new Passthrough(KafkaOptions.KAFKA.prefix(),
            "Kafka connection security setting for reading the topics (security.*, sasl.*, ssl.*); other"
                    + " producer properties are ignored here.",
            "--kafka.security.protocol=SSL", KafkaOptions.KAFKA_CONFIG_FILE);

    /**
     * Verify's own options plus the routing and Kafka connection options it shares with {@code run}. Of the
     * {@code --kafka.*} passthrough only the connection security settings (security.*, sasl.*, ssl.*) are
     * used, by verify's consumer.
     */
    public static final OptionSet SET = OptionSet.builder("Verify")
            .add(KafkaOptions.KAFKA_BOOTSTRAP).add(KafkaOptions.TOPIC_TEMPLATE)
            .passthrough(KAFKA)
            .add(SINCE).add(ISOLATION).add(JSON)
            .build();

    private VerifyOptions() {
    }

    private static String isolation(String raw) {
        String v = raw.trim().toLowerCase(java.util.Locale.ROOT).replace('-', '_');
        if (!v.equals(READ_COMMITTED) && !v.equals(READ_UNCOMMITTED)) {
            throw new IllegalArgumentException("expected one of read_committed, read_uncommitted, was '" + raw + "'");
        }
        return v;
    }
}
