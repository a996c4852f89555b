package dev.outboxrelay.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
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

    private static final Path SHARED = Path.of(System.getProperty("java.io.tmpdir"), "outbox-relay-test-ports");
    private static final int LOW = 20_000;
    private static final int HIGH = Math.max(LOW + 1_000, Math.min(30_000, ephemeralLow() - 1));
    private static final List<FileChannel> HELD = new ArrayList<>();
    private static int cursor = ThreadLocalRandom.current().nextInt(HIGH - LOW);
    private static Path dir; // found on the first reserve(), then kept

    private TestPorts() {
    }

    /** A port on the loopback interface that nothing listens on and no other test JVM will hand out. */
    public static synchronized int reserve() {
        try {
            if (dir == null) {
                dir = directory();
            }
            int span = HIGH - LOW;
            for (int tried = 0; tried < span; tried++) {
                int port = LOW + cursor;
                cursor = (cursor + 1) % span;
                FileChannel channel = open(dir.resolve(port + ".lock"));
                if (channel == null) {
                    continue; // another user's lock file we may not write: count the port as taken
                }
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
            throw new IllegalStateException("no free port in " + LOW + "-" + HIGH + " (locks in " + dir + ")");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reserve a test port in " + SHARED, e);
        }
    }

    /**
     * The shared directory, made writable by all by whoever creates it, because
     * root's test JVMs and the unprivileged user's (the kit's non-root probe, a developer's second checkout)
     * must see one another's locks. A shared directory that this user cannot write falls back to a per-user one.
     */
    private static Path directory() throws IOException {
        Files.createDirectories(SHARED);
        setPermissions(SHARED, "rwxrwxrwx"); // files here are never deleted: no sticky bit needed
        if (Files.isWritable(SHARED)) {
            return SHARED;
        }
        Path own = Path.of(SHARED + "-" + System.getProperty("user.name"));
        Files.createDirectories(own);
        return own;
    }

    /** The lock file opened for writing, created readable and writable by all; null when this user may not. */
    private static FileChannel open(Path file) throws IOException {
        try {
            FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            setPermissions(file, "rw-rw-rw-");
            return channel;
        } catch (AccessDeniedException e) {
            return null;
        }
    }

    /** Only the owner may change a file's mode; everyone else finds it as the owner left it. */
    private static void setPermissions(Path path, String mode) {
        try {
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(mode));
        } catch (IOException | UnsupportedOperationException e) {
            // not the owner, or not a POSIX file system: leave the mode alone
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
