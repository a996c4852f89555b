package dev.outboxrelay.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TestPortsTest {

    @Test
    void portsAreDistinctFreeAndBelowTheEphemeralRange() throws IOException {
        int ephemeralLow = Integer.parseInt(Files.readAllLines(Path.of("/proc/sys/net/ipv4/ip_local_port_range"))
                .get(0).trim().split("\\s+")[0]);
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < 50; i++) {
            int port = TestPorts.reserve();
            assertThat(ports.add(port)).as("port %d handed out twice", port).isTrue();
            assertThat(port).isLessThan(ephemeralLow);
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            }
        }
    }

    @Test
    void aReservedPortIsLockedAgainstEveryOtherJvm() throws IOException {
        int port = TestPorts.reserve();
        Path lockFile = Path.of(System.getProperty("java.io.tmpdir"), "outbox-relay-test-ports", port + ".lock");
        assertThat(lockFile).exists();
        // Root's JVMs and the unprivileged user's share the locks (NonRootStartIT runs one of each at once).
        assertThat(Files.getPosixFilePermissions(lockFile.getParent())).contains(PosixFilePermission.OTHERS_WRITE);
        assertThat(Files.getPosixFilePermissions(lockFile)).contains(PosixFilePermission.OTHERS_WRITE);
        // Another JVM's tryLock fails while this one holds it; in this JVM the same check throws instead.
        try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
            org.assertj.core.api.Assertions.assertThatThrownBy(channel::tryLock)
                    .isInstanceOf(java.nio.channels.OverlappingFileLockException.class);
        }
    }
}
