package dev.outboxrelay.core;

import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.RelayConfig;

/**
 * The wiring point between the daemon and a source module: {@code run --mode <mode>} looks up the factory
 * whose {@link #mode()} matches through {@link java.util.ServiceLoader}, so a source module plugs in by
 * listing its implementation in {@code META-INF/services/dev.outboxrelay.core.SourceFactory}.
 *
 * <p>The daemon composes the common option sets with every factory's {@link #options()} (help shows them
 * all), validates everything before calling {@link #create}, and starts and closes the returned source.
 */
public interface SourceFactory {

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
}
