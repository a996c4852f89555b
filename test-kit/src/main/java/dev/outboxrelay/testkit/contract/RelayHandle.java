package dev.outboxrelay.testkit.contract;

/** A relay instance started by a {@link RelayContract} subclass. */
@FunctionalInterface
public interface RelayHandle extends AutoCloseable {

    /** Stops the relay gracefully and waits until it stopped. Called once; must not throw. */
    @Override
    void close();
}
