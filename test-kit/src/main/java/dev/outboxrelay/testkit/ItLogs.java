package dev.outboxrelay.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;

/**
 * Where the processes a test starts (relays, brokers, Connect workers) write their logs: one directory per test
 * JVM run, {@code target/it-logs/run-<time>-<pid>/}, so that a test never reads an earlier run's lines as its own
 * (a rerun without {@code clean} used to find the last run's "injecting an Error" line and measure from it).
 * Within one run a name keeps appending: a relay restarted under the same name has one log of both lives.
 */
public final class ItLogs {

    private static final Path RUN = Path.of("target", "it-logs", "run-"
            + LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss")) + "-"
            + ProcessHandle.current().pid());

    private ItLogs() {
    }

    /** This run's log directory, created on first use. */
    public static Path dir() {
        try {
            return Files.createDirectories(RUN);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + RUN, e);
        }
    }

    /** {@code <name>.log} in this run's directory. */
    public static Path file(String name) {
        return dir().resolve(name + ".log");
    }
}
