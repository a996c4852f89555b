package dev.outboxrelay.daemon;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The current {@link DaemonState}, changed only by compare-and-set so that a signal thread, a shutdown hook
 * and the main thread can never both "win" the same transition.
 */
final class Lifecycle {

    private static final Logger LOG = LoggerFactory.getLogger(Lifecycle.class);

    private final AtomicReference<DaemonState> state = new AtomicReference<>(DaemonState.NEW);
    private final CountDownLatch terminated = new CountDownLatch(1);

    DaemonState state() {
        return state.get();
    }

    /**
     * Moves from {@code from} to {@code to}.
     *
     * @throws IllegalStateException when the transition is not legal, or the state is no longer {@code from}
     */
    void move(DaemonState from, DaemonState to) {
        if (!from.next().contains(to)) {
            throw new IllegalStateException("illegal daemon state transition " + from + " -> " + to
                    + " (from " + from + " only " + from.next() + ")");
        }
        if (!state.compareAndSet(from, to)) {
            throw new IllegalStateException("cannot move the daemon from " + from + " to " + to + ": it is "
                    + state.get());
        }
        LOG.debug("Daemon state {} -> {}", from, to);
        if (to.terminal()) {
            terminated.countDown();
        }
    }

    /** Like {@link #move} but returns false instead of throwing when the state is not {@code from}. */
    boolean tryMove(DaemonState from, DaemonState to) {
        if (state.get() != from) {
            return false;
        }
        try {
            move(from, to);
            return true;
        } catch (IllegalStateException raced) {
            return false;
        }
    }

    /** Waits until STOPPED or FAILED; false on timeout. */
    boolean awaitTerminal(long millis) throws InterruptedException {
        return terminated.await(millis, TimeUnit.MILLISECONDS);
    }
}
