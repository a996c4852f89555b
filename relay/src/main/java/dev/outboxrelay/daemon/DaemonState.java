package dev.outboxrelay.daemon;

import java.util.EnumSet;
import java.util.Set;

/**
 * The daemon's lifecycle: {@code NEW → STARTING → RUNNING → STOPPING → STOPPED}, with {@code FAILED} reachable
 * from every state that does work. Only the transitions listed in {@link #next()} are legal.
 */
public enum DaemonState {
    /** Built, nothing contacted. */
    NEW,
    /** Opening the endpoint, probes and the source. */
    STARTING,
    /** Relaying (as the active instance) or standing by. */
    RUNNING,
    /** Stop requested: no new work is taken, the in-flight batch is finished and marked. */
    STOPPING,
    /** Stopped in order; terminal. */
    STOPPED,
    /** Start failed, a fatal error occurred, or the shutdown timed out; terminal. */
    FAILED;

    /** The states this one may move to. */
    public Set<DaemonState> next() {
        return switch (this) {
            case NEW -> EnumSet.of(STARTING, STOPPED);
            case STARTING -> EnumSet.of(RUNNING, STOPPING, FAILED);
            case RUNNING -> EnumSet.of(STOPPING, FAILED);
            case STOPPING -> EnumSet.of(STOPPED, FAILED);
            case STOPPED, FAILED -> EnumSet.noneOf(DaemonState.class);
        };
    }

    /** True for STOPPED and FAILED. */
    public boolean terminal() {
        return this == STOPPED || this == FAILED;
    }
}
