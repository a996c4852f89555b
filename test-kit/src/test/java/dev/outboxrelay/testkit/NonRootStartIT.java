package dev.outboxrelay.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The kit must work both as root (CI) and as an ordinary user (developers). When this JVM is root, prove the
 * non-root path in a child JVM run by the unprivileged user; when it is not root, every other PostgreSQL test
 * already exercises the non-root path and this one is skipped.
 */
class NonRootStartIT {

    @TempDir(cleanup = org.junit.jupiter.api.io.CleanupMode.ALWAYS)
    Path tmp;

    @Test
    void childJvmStartsPostgresAsNonRoot() throws Exception {
        // As root the child runs as the unprivileged server user; otherwise it simply runs as we do (non-root).
        boolean root = OsCommands.isRoot();
        String user = root ? OsCommands.serverUser() : System.getProperty("user.name");

        // Our classpath usually lives below /root (mode 700), which the unprivileged user cannot read:
        // copy it somewhere world-readable.
        List<String> copied = new ArrayList<>();
        int i = 0;
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            Path source = Path.of(entry);
            if (!Files.exists(source)) {
                continue;
            }
            Path target = tmp.resolve((i++) + "-" + source.getFileName());
            copyTree(source, target);
            copied.add(target.toString());
        }
        OsCommands.runChecked(List.of("chmod", "-R", "a+rX", tmp.toString()), Duration.ofSeconds(30));
        assertThat(OsCommands.traversableByOthers(tmp)).as("temp dir %s reachable by %s", tmp, user).isTrue();

        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> command = new ArrayList<>(root ? List.of("runuser", "-u", user, "--") : List.of());
        command.addAll(List.of(java, "-Xmx256m", "-Djava.io.tmpdir=/tmp", "-cp",
                String.join(File.pathSeparator, copied), NonRootProbe.class.getName()));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        // The child must start its own server, not reuse an external one.
        pb.environment().remove(TestPostgres.EXTERNAL_URL_ENV);
        Path log = tmp.resolve("child.log");
        pb.redirectOutput(log.toFile());
        Process child = pb.start();
        boolean finished = child.waitFor(90, TimeUnit.SECONDS);
        if (!finished) {
            child.destroyForcibly();
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(finished).as("child finished in time; output:%n%s", output).isTrue();
        assertThat(child.exitValue()).as("child exit code; output:%n%s", output).isZero();
        assertThat(output).contains(NonRootProbe.MARKER + " root=false osUser=" + user + " wal_level=logical relay=1");
    }

    private static void copyTree(Path source, Path target) throws IOException {
        if (Files.isRegularFile(source)) {
            Files.copy(source, target, StandardCopyOption.COPY_ATTRIBUTES);
            return;
        }
        try (Stream<Path> paths = Files.walk(source)) {
            for (Path p : (Iterable<Path>) paths::iterator) {
                Path dest = target.resolve(source.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(dest);
                } else {
                    Files.copy(p, dest, StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }
}
