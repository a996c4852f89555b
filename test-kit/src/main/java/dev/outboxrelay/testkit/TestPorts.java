package dev.outboxrelay.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for the servers that tests start as other processes (a relay's HTTP endpoints, a Connect worker's REST
 * API, PostgreSQL), safe when several test JVMs run at once (Surefire/Failsafe forks, modules built in parallel).
 *
 * <p>"Bind port 0, close, hand the number on" races: between the close and the child's bind, another JVM's child
 * or any outgoing connection can take the port. Here each port is (1) taken below the kernel's ephemeral range, so
 * no {@code bind(0)} and no outgoing connection is ever given it, and (2) reserved with an OS file lock in a
 * directory every test JVM on the machine shares, held until this JVM exits (the OS drops it even after a
 * SIGKILL), so no two JVMs hand out the same port. A port is never handed out twice by one JVM either.
 */
public final class TestPorts {

    private static final Path DIR = Path.of(System.getProperty("java.io.tmpdir"), "outbox-relay-test-ports");
    private static final int LOW = 20_000;
    private static final int HIGH = Math.max(LOW + 1_000, Math.min(30_000, ephemeralLow() - 1));
    private static final List<FileChannel> HELD = new ArrayList<>();
    private static int cursor = ThreadLocalRandom.current().nextInt(HIGH - LOW);

    private TestPorts() {
    }

    /** A port on the loopback interface that nothing listens on and no other test JVM will hand out. */
    public static synchronized int reserve() {
        try {
            Files.createDirectories(DIR);
            int span = HIGH - LOW;
            for (int tried = 0; tried < span; tried++) {
                int port = LOW + cursor;
                cursor = (cursor + 1) % span;
                FileChannel channel = FileChannel.open(DIR.resolve(port + ".lock"), StandardOpenOption.CREATE,
                        StandardOpenOption.WRITE);
                FileLock lock;
                try {
                    lock = channel.tryLock();
                } catch (OverlappingFileLockException e) {
                    lock = null; // this JVM holds it already (only after going round the whole range)
                }
                if (lock != null && bindable(port)) {
                    HELD.add(channel); // the lock lives as long as this JVM
                    return port;
                }
                channel.close();
            }
            throw new IllegalStateException("no free port in " + LOW + "-" + HIGH + " (locks in " + DIR + ")");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reserve a test port in " + DIR, e);
        }
    }

    private static boolean bindable(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** The lowest port of Linux's ephemeral range ({@code ip_local_port_range}); 32768 when it cannot be read. */
    private static int ephemeralLow() {
        try {
            // readAllLines, not readString: on procfs (size 0) Java 17's readString returns the first byte only.
            String range = Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range")).get(0).trim();
            return Integer.parseInt(range.split("\\s+")[0]);
        } catch (IOException | RuntimeException e) {
            return 32_768;
        }
    }
}
