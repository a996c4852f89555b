package dev.outboxrelay.testkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/** Finds the PostgreSQL server binaries ({@code initdb}, {@code postgres}, {@code pg_ctl}). */
final class PgBinaries {

    /** Environment variable pointing at a directory that contains {@code initdb} and {@code postgres}. */
    static final String PG_BIN_ENV = "PG_BIN";

    private static final Path DEBIAN_ROOT = Path.of("/usr/lib/postgresql");

    private PgBinaries() {
    }

    /**
     * Resolves the binary directory: {@code $PG_BIN}, else {@code pg_config --bindir}, else the highest
     * {@code /usr/lib/postgresql/<major>/bin}. A candidate only counts if it really has {@code initdb}:
     * Debian's {@code pg_config} comes from libpq-dev and may name a directory without a server.
     */
    static Path find() {
        String fromEnv = System.getenv(PG_BIN_ENV);
        if (fromEnv != null && !fromEnv.isBlank()) {
            Path dir = Path.of(fromEnv.trim());
            if (!hasServer(dir)) {
                throw new IllegalStateException(PG_BIN_ENV + "=" + dir + " does not contain initdb and postgres");
            }
            return dir;
        }
        Optional<Path> fromPgConfig = fromPgConfig();
        if (fromPgConfig.isPresent()) {
            return fromPgConfig.get();
        }
        return highestDebianInstall().orElseThrow(() -> new IllegalStateException(
                "No PostgreSQL server binaries found: set " + PG_BIN_ENV + ", put pg_config on the PATH, or install "
                        + "a server under " + DEBIAN_ROOT + " (e.g. 'apt-get install postgresql')."));
    }

    private static Optional<Path> fromPgConfig() {
        try {
            OsCommands.Result result = OsCommands.run(List.of("pg_config", "--bindir"), Duration.ofSeconds(10));
            if (result.ok()) {
                Path dir = Path.of(result.output().trim());
                if (hasServer(dir)) {
                    return Optional.of(dir);
                }
            }
        } catch (IOException | RuntimeException notInstalled) {
            // fall through to the Debian layout
        }
        return Optional.empty();
    }

    private static Optional<Path> highestDebianInstall() {
        if (!Files.isDirectory(DEBIAN_ROOT)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(DEBIAN_ROOT)) {
            return versions.filter(p -> p.getFileName().toString().matches("\\d+(\\.\\d+)?"))
                    .map(p -> p.resolve("bin"))
                    .filter(PgBinaries::hasServer)
                    // numeric, not lexical: 9.6 < 10 < 15
                    .max(Comparator.comparingDouble(p -> Double.parseDouble(p.getParent().getFileName().toString())));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static boolean hasServer(Path dir) {
        return Files.isExecutable(dir.resolve("initdb")) && Files.isExecutable(dir.resolve("postgres"))
                && Files.isExecutable(dir.resolve("pg_ctl"));
    }
}
