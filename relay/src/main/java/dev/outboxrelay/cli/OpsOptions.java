package dev.outboxrelay.cli;

import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.OptionType;
import dev.outboxrelay.core.config.Validator;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;

/** Options of the operator commands {@code status} and {@code dead-letters}. */
public final class OpsOptions {

    public static final Option<Duration> MAX_AGE = Option.duration("max-age")
            .defaultValue("5m")
            .validate(Validator.atLeast(Duration.ofSeconds(1), "1s"))
            .doc("status is unhealthy (exit 3) when the oldest unsent row is older than this.")
            .example("15m")
            .build();

    public static final Option<Boolean> JSON = Option.bool("json")
            .defaultValue("false")
            .doc("Print one JSON object (status) or array (dead-letters list) for scripts instead of text.")
            .example("true")
            .build();

    public static final Option<List<UUID>> IDS = Option.builder("id",
                    OptionType.custom("uuid", OpsOptions::uuids))
            .doc("A dead letter's event id; repeatable (--id A --id B) or comma-separated.")
            .example("6f1c2d3e-0000-4000-8000-000000000001")
            .build();

    public static final Option<String> AGGREGATE_TYPE = Option.string("aggregate-type")
            .validate(Validator.notBlank())
            .doc("Only dead letters of this aggregate_type.")
            .example("order")
            .build();

    public static final Option<Instant> SINCE = Option.builder("since",
                    OptionType.custom("time|duration", OpsOptions::since))
            .doc("Only rows dead-lettered at or after this time: ISO-8601 (2024-05-01T10:00:00Z) or a duration"
                    + " ago (24h).")
            .example("24h")
            .build();

    public static final Option<Boolean> ALL = Option.bool("all")
            .defaultValue("false")
            .doc("retry/discard every dead letter (instead of --id, --aggregate-type or --since).")
            .example("true")
            .build();

    public static final Option<Integer> LIMIT = Option.integer("limit")
            .defaultValue("100")
            .validate(Validator.between(1, 100_000))
            .doc("dead-letters list: at most this many rows, oldest dead letter first.")
            .example("1000")
            .build();

    public static final Option<String> OPERATOR = Option.string("operator")
            .validate(Validator.notBlank())
            .doc("dead-letters discard: who discards, stored in discarded_by (default: the OS user name).")
            .example("alice")
            .build();

    /** Options {@code CliOptions}' picocli bridge accepts more than once; values are joined with commas. */
    static final Set<Option<?>> REPEATABLE = Set.of(IDS);

    /** {@code status}. */
    public static final OptionSet STATUS = OptionSet.of("Status", MAX_AGE, JSON);

    /** Selecting dead letters. */
    public static final OptionSet SELECTION = OptionSet.of("Dead letters", IDS, AGGREGATE_TYPE, SINCE, ALL, LIMIT,
            OPERATOR, JSON);

    private OpsOptions() {
    }

    private static List<UUID> uuids(String raw) {
        List<UUID> ids = new ArrayList<>();
        for (String part : raw.split(",")) {
            String p = part.strip();
            try {
                ids.add(UUID.fromString(p));
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("expected an event id (UUID), was '" + p + "'");
            }
        }
        return List.copyOf(ids);
    }

    private static Instant since(String raw) {
        try {
            return Instant.parse(raw);
        } catch (DateTimeParseException notInstant) {
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("(\\d{1,9})(ms|s|m|h|d)").matcher(raw);
            if (!m.matches()) {
                throw new IllegalArgumentException("expected an ISO-8601 time such as 2024-05-01T10:00:00Z or a"
                        + " duration such as 24h, was '" + raw + "'");
            }
            long n = Long.parseLong(m.group(1));
            Duration ago = switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
            return Instant.now().minus(ago);
        }
    }
}
