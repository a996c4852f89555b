package dev.outboxrelay.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;

/** What /proc says about a contender's process. */
final class ProcessStats {

    private ProcessStats() {
    }

    /** The last 30 lines of a contender's log, for an error message. */
    static String tail(Path log) {
        try {
            java.util.List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log at " + log + ")";
        }
    }

    /** VmHWM (peak resident set size) of a running process in bytes; empty when it is gone or unreadable. */
    static OptionalLong peakRssBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmHWM:")) {
                    return OptionalLong.of(Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024);
                }
            }
        } catch (IOException | NumberFormatException e) {
            // the process ended meanwhile
        }
        return OptionalLong.empty();
    }
}
