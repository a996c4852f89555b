package dev.outboxrelay.testkit;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Runs external commands for the test kit, switching to an unprivileged OS user when this JVM is root.
 *
 * <p>PostgreSQL refuses to run as root, and CI runs as root, so everything that touches the server's
 * files ({@code initdb}, {@code postgres}, {@code pg_ctl}) goes through {@link #asServerUser(List)}.
 */
final class OsCommands {

    /** Environment variable naming the OS user to run PostgreSQL as when the JVM is root. */
    static final String OS_USER_ENV = "PG_OS_USER";

    private static final Object LOCK = new Object();
    private static Boolean root;
    private static String serverUser;
    private static boolean serverUserResolved;

    private OsCommands() {
    }

    /** What a finished command printed (stdout and stderr merged) and how it exited. */
    record Result(int exitCode, String output) {
        boolean ok() {
            return exitCode == 0;
        }
    }

    /** Whether this process runs with uid 0. */
    static boolean isRoot() {
        synchronized (LOCK) {
            if (root == null) {
                // user.name can be overridden on the command line; the kernel's answer cannot.
                try {
                    Result id = run(List.of("id", "-u"), Duration.ofSeconds(10));
                    root = id.ok() ? "0".equals(id.output().trim()) : "root".equals(System.getProperty("user.name"));
                } catch (IOException e) {
                    root = "root".equals(System.getProperty("user.name"));
                }
            }
            return root;
        }
    }

    /**
     * The OS user the server runs as: {@code null} when the JVM is not root (run as ourselves), otherwise
     * {@code $PG_OS_USER}, {@code postgres} or, as a last resort, {@code nobody}, whichever exists first.
     */
    static String serverUser() {
        synchronized (LOCK) {
            if (!serverUserResolved) {
                serverUser = isRoot() ? pickUnprivilegedUser() : null;
                serverUserResolved = true;
            }
            return serverUser;
        }
    }

    private static String pickUnprivilegedUser() {
        List<String> candidates = new ArrayList<>();
        String fromEnv = System.getenv(OS_USER_ENV);
        if (fromEnv != null && !fromEnv.isBlank()) {
            candidates.add(fromEnv.trim());
        }
        // "nobody" works because the server only ever writes below a directory we chown to it.
        candidates.add("postgres");
        candidates.add("nobody");
        for (String candidate : candidates) {
            try {
                if (run(List.of("id", "-u", candidate), Duration.ofSeconds(10)).ok()) {
                    return candidate;
                }
            } catch (IOException ignored) {
                // try the next one
            }
        }
        throw new IllegalStateException("This JVM runs as root and PostgreSQL refuses to run as root, but none of the OS users "
                + candidates + " exists. Create one (e.g. 'useradd --system postgres') or set " + OS_USER_ENV + ".");
    }

    /** Prefixes {@code command} with {@code runuser} when the server must run as another OS user. */
    static List<String> asServerUser(List<String> command) {
        String user = serverUser();
        if (user == null) {
            return command;
        }
        List<String> wrapped = new ArrayList<>(List.of("runuser", "-u", user, "--"));
        wrapped.addAll(command);
        return wrapped;
    }

    /** Hands {@code path} (recursively) to the server user; a no-op when not root. */
    static void giveToServerUser(Path path) throws IOException {
        String user = serverUser();
        if (user == null) {
            return;
        }
        // "user:" also sets the group to the user's login group, which keeps group-readable files private.
        Result chown = run(List.of("chown", "-R", user + ":", path.toString()), Duration.ofSeconds(30));
        if (!chown.ok()) {
            throw new IOException("chown " + user + " " + path + " failed: " + chown.output());
        }
    }

    /**
     * Whether every ancestor of {@code dir} lets "others" traverse it, which the server user needs when it
     * is not us (a {@code java.io.tmpdir} below {@code /root} is typically mode 700).
     */
    static boolean traversableByOthers(Path dir) {
        for (Path p = dir.toAbsolutePath(); p != null; p = p.getParent()) {
            try {
                Set<PosixFilePermission> perms = Files.getPosixFilePermissions(p);
                if (!perms.contains(PosixFilePermission.OTHERS_EXECUTE)) {
                    return false;
                }
            } catch (IOException | UnsupportedOperationException e) {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code preferred}, or {@code /tmp} when the server runs as another user that could not reach it (e.g.
     * {@code java.io.tmpdir} below {@code /root}).
     */
    static Path reachableByServer(Path preferred) {
        return serverUser() != null && !traversableByOthers(preferred) ? Path.of("/tmp") : preferred;
    }

    /** Runs a command to completion, killing it after {@code timeout}. */
    static Result run(List<String> command, Duration timeout) throws IOException {
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectInput(ProcessBuilder.Redirect.PIPE).start();
        process.getOutputStream().close();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        // Read on another thread: a chatty child would otherwise block on a full pipe and never exit.
        Thread pump = new Thread(() -> copy(process.getInputStream(), out), "outbox-testkit-cmd-output");
        pump.setDaemon(true);
        pump.start();
        try {
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IOException("Timed out after " + timeout + ": " + String.join(" ", command));
            }
            pump.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while running " + String.join(" ", command), e);
        }
        synchronized (out) {
            return new Result(process.exitValue(), out.toString(StandardCharsets.UTF_8));
        }
    }

    /** Like {@link #run} but fails unless the command exits with 0. */
    static String runChecked(List<String> command, Duration timeout) throws IOException {
        Result result = run(command, timeout);
        if (!result.ok()) {
            throw new IOException("Command failed with exit code " + result.exitCode() + ": " + String.join(" ", command)
                    + System.lineSeparator() + result.output());
        }
        return result.output();
    }

    private static void copy(InputStream in, ByteArrayOutputStream out) {
        byte[] buffer = new byte[8192];
        try (in) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                synchronized (out) {
                    out.write(buffer, 0, n);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Deletes a directory tree and returns once it is gone (or after 10 s). Files may vanish meanwhile: the
     * PostgreSQL watchdog deletes the same tree concurrently, so a walk can fail half-way and is retried.
     */
    static void deleteTree(Path root) {
        if (root == null) {
            return;
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (Files.exists(root)) {
            try (var paths = Files.walk(root)) {
                paths.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> {
                    try {
                        Files.deleteIfExists(p);
                    } catch (IOException ignored) {
                        // retried by the next round
                    }
                });
            } catch (IOException | UncheckedIOException ignored) {
                // a file vanished during the walk; walk again
            }
            if (System.nanoTime() > deadline) {
                return;
            }
            if (Files.exists(root)) {
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }
}
