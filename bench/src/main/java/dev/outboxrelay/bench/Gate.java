package dev.outboxrelay.bench;

/** Pauses an in-process baseline: its loop calls {@link #pass()} before claiming work. */
final class Gate {

    private boolean paused;
    private boolean parked;

    /** Blocks while paused. */
    synchronized void pass() throws InterruptedException {
        while (paused) {
            parked = true;
            notifyAll();
            wait();
        }
        parked = false;
    }

    /** Pauses; with {@code awaitParked} waits (bounded) until the loop is actually blocked in {@link #pass()}. */
    synchronized void pause(boolean awaitParked) throws InterruptedException {
        paused = true;
        long deadline = System.currentTimeMillis() + 30_000;
        while (awaitParked && !parked && System.currentTimeMillis() < deadline) {
            wait(100);
        }
    }

    synchronized void resume() {
        paused = false;
        notifyAll();
    }
}
