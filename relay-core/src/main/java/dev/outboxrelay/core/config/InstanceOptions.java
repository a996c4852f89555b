package dev.outboxrelay.core.config;

import java.time.Duration;

/** Options that identify a relay instance; shared by both sources so each is declared once. */
public final class InstanceOptions {

    /** Default relay name. */
    public static final String DEFAULT_RELAY_NAME = "outbox-relay";

    public static final Option<String> RELAY_NAME = Option.string("relay-name")
            .defaultValue(DEFAULT_RELAY_NAME)
            .validate(name -> name.matches("[A-Za-z0-9._-]{1,100}") ? null
                    : "must be 1 to 100 letters, digits, '.', '_' or '-'")
            .doc("Name of this relay: it keys the CDC offsets (instances with the same name continue each"
                    + " other's stream), tags every metric and starts application_name in pg_stat_activity"
                    + " (<name>@<host>:<pid>/<mode>). One relay per table is active, whatever its name or mode.")
            .example("orders-relay")
            .build();

    /**
     * How often a standby retries to become the active instance (poll: the table's poller lock; CDC: the
     * relay name's engine lock); also how often the active CDC instance checks that it still holds its lock.
     */
    public static final Option<Duration> STANDBY_INTERVAL = Option.duration("standby-interval")
            .defaultValue("2s")
            .validate(Validator.atLeast(Duration.ofMillis(100), "100ms"))
            .doc("How often a standby relay tries to take over from the active one (which also checks its lock"
                    + " this often); bounds the takeover time after the active relay dies.")
            .example("5s")
            .build();

    private InstanceOptions() {
    }
}
