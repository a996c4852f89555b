package dev.outboxrelay.bench;

/**
 * A contender whose work is one loop on a thread of its own (the pollers), paused at a {@link Gate} the loop
 * passes before each round. A failure of the loop is reported at the next pause or resume.
 */
abstract class LoopContender implements Contender {

    private final String name;
    private final Gate gate = new Gate();
    private final Thread thread;
    private volatile boolean stop;
    private volatile Exception failure;

    LoopContender(String name) {
        this.name = name;
        this.thread = new Thread(this::run, "bench-" + name);
    }

    @Override
    public String name() {
        return name;
    }

    /** Sets up what the loop needs before it starts. */
    abstract void prepare() throws Exception;

    /** The loop: rounds while {@link #running()}, each starting with {@link #pass()}. */
    abstract void loop() throws Exception;

    /** Closes what {@link #prepare()} and the constructor opened; called once the loop ended. */
    abstract void release();

    /** Closes each of {@code resources} in turn; a failure to close one does not keep the next open. */
    static void closeAll(AutoCloseable... resources) {
        for (AutoCloseable r : resources) {
            try {
                r.close();
            } catch (Exception ignored) {
                // closing anyway
            }
        }
    }

    final boolean running() {
        return !stop;
    }

    /** Blocks while paused. */
    final void pass() throws InterruptedException {
        gate.pass();
    }

    @Override
    public final void start() throws Exception {
        prepare();
        thread.start();
    }

    private void run() {
        try {
            loop();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            if (!stop) {
                failure = e;
            }
        }
    }

    @Override
    public final void pause() throws InterruptedException {
        gate.pause(true);
        check();
    }

    @Override
    public final void resume() {
        check();
        gate.resume();
    }

    private void check() {
        if (failure != null) {
            throw new IllegalStateException(name + " failed: " + failure.getMessage(), failure);
        }
    }

    @Override
    public final void close() {
        stop = true;
        gate.resume();
        try {
            thread.join(30_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        release();
    }
}
