package dev.outboxrelay.testkit.contract;

/** A relay instance started by a {@link RelayContract} subclass. */
@FunctionalInterface
public interface RelayHandle extends AutoCloseable {

    /** Whether the relay reports itself healthy ({@code OutboxSource.isHealthy}); true when it cannot say. */
    default boolean healthy() {
        return true;
    }

    /** Stops the relay gracefully and waits until it stopped. Called once; must not throw. */
    @Override
    void close();
}
