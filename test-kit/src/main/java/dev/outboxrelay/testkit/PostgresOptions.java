package dev.outboxrelay.testkit;

import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * How to start a dedicated server.
 *
 * @param port         TCP port on 127.0.0.1; 0 picks a free one
 * @param settings     extra {@code postgresql.conf} settings, applied after (and so overriding) the defaults
 * @param startTimeout how long to wait for the server to accept connections
 * @param baseDir      where to create the cluster directory; {@code null} means {@code java.io.tmpdir}
 * @param tls          {@code null}, or certificates for a TLS-only server: TCP connections must use TLS, the relay
 *                     role authenticates with its client certificate, everyone else as before
 */
public record PostgresOptions(int port, Map<String, String> settings, Duration startTimeout, Path baseDir,
                              TestCertificates tls) {

    /** Validates and copies the arguments. */
    public PostgresOptions {
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port);
        }
        settings = Map.copyOf(settings);
        Objects.requireNonNull(startTimeout, "startTimeout");
    }

    /** Free port, no extra settings, 60 s to start, cluster under {@code java.io.tmpdir}. */
    public static PostgresOptions defaults() {
        return new PostgresOptions(0, Map.of(), Duration.ofSeconds(60), null, null);
    }

    /** A copy listening on {@code newPort} (0 = any free port). */
    public PostgresOptions withPort(int newPort) {
        return new PostgresOptions(newPort, settings, startTimeout, baseDir, tls);
    }

    /** A copy with one more server setting, e.g. {@code withSetting("max_connections", "50")}. */
    public PostgresOptions withSetting(String name, String value) {
        Map<String, String> copy = new LinkedHashMap<>(settings);
        copy.put(name, value);
        return new PostgresOptions(port, copy, startTimeout, baseDir, tls);
    }

    /** A copy with another startup timeout. */
    public PostgresOptions withStartTimeout(Duration timeout) {
        return new PostgresOptions(port, settings, timeout, baseDir, tls);
    }

    /** A copy that creates the cluster directory below {@code dir}. */
    public PostgresOptions withBaseDir(Path dir) {
        return new PostgresOptions(port, settings, startTimeout, dir, tls);
    }

    /** A copy that accepts TCP connections over TLS only, with these certificates. */
    public PostgresOptions withTls(TestCertificates certificates) {
        return new PostgresOptions(port, settings, startTimeout, baseDir, certificates);
    }
}
