package dev.outboxrelay.bench;

import java.nio.file.Path;
import java.util.OptionalLong;

/** A contender in a process of its own (the relay, a baseline, a floor): its pid, its peak RSS, its log. */
abstract class SubprocessContender implements Contender {

    /** Where the process's output goes. */
    final Path log;
    /** Set by {@link #start()}. */
    Process process;
    private long peakRss = -1;

    SubprocessContender(Path log) {
        this.log = log;
    }

    @Override
    public final OptionalLong pid() {
        return process == null ? OptionalLong.empty() : OptionalLong.of(process.pid());
    }

    /** VmHWM of the process, read from /proc while it runs (and kept from the last read after it ends). */
    @Override
    public final OptionalLong peakRssBytes() {
        if (process != null && process.isAlive()) {
            ProcessStats.peakRssBytes(process.pid()).ifPresent(bytes -> peakRss = bytes);
        }
        return peakRss < 0 ? OptionalLong.empty() : OptionalLong.of(peakRss);
    }

    /** Sends {@code SIG<name>} to the process (STOP and CONT pause and resume it). */
    final void signal(String name) throws java.io.IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
        if (kill.waitFor() != 0) {
            throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
        }
    }

    /** Ends the process and waits for it; must not throw. */
    abstract void stop();

    @Override
    public final void close() {
        if (process == null) {
            return;
        }
        peakRssBytes();
        stop();
    }
}
