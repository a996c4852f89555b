package dev.outboxrelay.core;

import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.RelayConfig;
import java.util.List;

/**
 * The wiring point between the daemon and a source module: {@code run --mode <mode>} looks up the factory
 * whose {@link #mode()} matches through {@link java.util.ServiceLoader}, so a source module plugs in by
 * listing its implementation in {@code META-INF/services/dev.outboxrelay.core.SourceFactory}. The daemon compiles
 * against relay-core only; everything it needs to know about a source it learns here.
 *
 * <p>The daemon composes the common option sets with every factory's {@link #options()} (help shows them
 * all), validates everything before calling {@link #create}, and starts and closes the returned source.
 */
public interface SourceFactory {

    /** How the instances of one outbox table agree which of them publishes (one table lock across modes). */
    enum Coordination {
        /**
         * The source takes the table's relay lock itself, on the session it reads with (so losing the session
         * stops reading at once), and reports {@link OutboxSource#isActive()}.
         */
        SOURCE,
        /**
         * The daemon takes the table's relay lock and runs a fresh source only while it holds it, closing it as
         * soon as it cannot prove it still does.
         */
        DAEMON
    }

    /**
     * A gauge the source's {@link SourceInspector} samples, exposed by the daemon's metrics endpoint.
     *
     * @param name        Micrometer name, e.g. {@code outbox.relay.cdc.retained.wal}
     * @param baseUnit    e.g. {@code bytes}
     * @param description for the metrics endpoint and docs
     */
    record Gauge(String name, String baseUnit, String description) {
    }

    /** The {@code --mode} value this factory serves, e.g. {@code poll} or {@code cdc}. */
    String mode();

    /** The module's own options (e.g. {@code PollOptions.SET}); titled so help can say which mode uses them. */
    OptionSet options();

    /**
     * Builds the source from a validated config. Must not contact anything until {@link OutboxSource#start()}.
     *
     * @param config   contains the common options ({@code DatabaseOptions}, {@code KafkaOptions}) and this
     *                 factory's {@link #options()}
     * @param listener metrics and alert hooks the source reports to
     */
    OutboxSource create(RelayConfig config, RelayListener listener);

    /** Who takes the table's relay lock; {@link Coordination#SOURCE} unless the source needs the daemon to. */
    default Coordination coordination() {
        return Coordination.SOURCE;
    }

    /** Options of this module that {@code status} reads too (e.g. the slot name); among {@link #options()}. */
    default List<Option<?>> statusOptions() {
        return List.of();
    }

    /** What {@code status} and the probes show of this source, for a config holding at least the status options. */
    default SourceInspector inspector(RelayConfig config) {
        return SourceInspector.none();
    }

    /** Gauges the {@link #inspector} samples; registered by the daemon in this mode. */
    default List<Gauge> gauges() {
        return List.of();
    }
}
