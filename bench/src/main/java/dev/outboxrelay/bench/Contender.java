package dev.outboxrelay.bench;

import java.util.OptionalLong;

/**
 * Something that moves outbox rows to the scenario's topic: a baseline written the way a competent user would,
 * or the relay itself. The runner pauses it while it writes the backlog, so that every contender drains the
 * same pre-filled backlog from a warm start.
 */
interface Contender extends AutoCloseable {

    /** Short name used in the table, e.g. {@code poll (mark)}. */
    String name();

    /** Starts and returns once it can pick up rows (for CDC: once its replication slot is streaming). */
    void start() throws Exception;

    /** Stops picking up new rows until {@link #resume()}. */
    void pause() throws Exception;

    /** Picks up rows again. */
    void resume() throws Exception;

    /** Peak resident set size of the contender's own process, if it has one. */
    default OptionalLong peakRssBytes() {
        return OptionalLong.empty();
    }

    /** The contender's own process, if it has one. */
    default OptionalLong pid() {
        return OptionalLong.empty();
    }

    /** Stops it and waits; must not throw. */
    @Override
    void close();
}
