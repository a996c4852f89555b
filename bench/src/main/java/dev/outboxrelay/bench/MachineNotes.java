package dev.outboxrelay.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What the machine was doing: cores, load, memory, JVM. Numbers from a shared machine need this context. */
final class MachineNotes {

    private MachineNotes() {
    }

    /** {@code /proc/loadavg}'s first three fields, or "unknown". */
    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException | RuntimeException e) {
            return "unknown";
        }
    }

    /** The 1-minute load average, NaN when unknown. */
    static double loadAverage1() {
        try {
            return Double.parseDouble(loadAverage().split(" ")[0]);
        } catch (NumberFormatException e) {
            return Double.NaN;
        }
    }

    /** Lines describing the machine and this JVM. */
    static List<String> describe() {
        List<String> lines = new ArrayList<>();
        lines.add("cores: " + Runtime.getRuntime().availableProcessors() + " (" + cpuModel() + ")");
        lines.add("memory: " + memTotal());
        lines.add("JVM: " + System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")
                + ", bench JVM max heap " + Runtime.getRuntime().maxMemory() / (1024 * 1024) + " MB");
        lines.add("OS: " + System.getProperty("os.name") + " " + System.getProperty("os.version"));
        return lines;
    }

    private static String cpuModel() {
        try {
            return Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                    .map(l -> l.substring(l.indexOf(':') + 1).trim()).findFirst().orElse("unknown CPU");
        } catch (IOException e) {
            return "unknown CPU";
        }
    }

    private static String memTotal() {
        try {
            return Files.readAllLines(Path.of("/proc/meminfo")).stream().filter(l -> l.startsWith("MemTotal"))
                    .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) / (1024 * 1024) + " GiB").findFirst()
                    .orElse("unknown");
        } catch (IOException | NumberFormatException e) {
            return "unknown";
        }
    }
}
