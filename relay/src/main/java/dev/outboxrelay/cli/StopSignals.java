package dev.outboxrelay.cli;

import sun.misc.Signal;

/** Turns SIGTERM and SIGINT into an orderly stop request instead of an immediate JVM exit. */
final class StopSignals {

    private StopSignals() {
    }

    /** Runs {@code onStop} (on a JVM signal thread) when the process receives SIGTERM or SIGINT. */
    static void onStop(Runnable onStop) {
        for (String name : new String[] {"TERM", "INT"}) {
            try {
                Signal.handle(new Signal(name), signal -> onStop.run());
            } catch (IllegalArgumentException e) {
                // The signal is reserved on this platform (e.g. INT under some debuggers); the shutdown hook remains.
            }
        }
    }
}
