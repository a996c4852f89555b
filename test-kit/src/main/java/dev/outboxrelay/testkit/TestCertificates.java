package dev.outboxrelay.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * A throwaway certificate authority with a server certificate for {@code localhost}/{@code 127.0.0.1} and a client
 * certificate for the relay role, made with the {@code openssl} command: for a TLS-only PostgreSQL
 * ({@link PostgresOptions#withTls}) that checks both sides.
 *
 * @param caCert     the CA's certificate (PEM): the server's {@code ssl_ca_file}, the client's {@code sslrootcert}
 * @param serverCert the server certificate (PEM), subject alternative names {@code localhost} and {@code 127.0.0.1}
 * @param serverKey  its private key (PEM)
 * @param clientCert the client certificate (PEM) with common name {@link TestPostgres#RELAY_USER}
 * @param clientKey  its private key as PKCS-8 DER, the form pgjdbc's {@code sslkey} reads
 */
public record TestCertificates(Path caCert, Path serverCert, Path serverKey, Path clientCert, Path clientKey) {

    private static final Duration TIMEOUT = Duration.ofMinutes(1);

    /** Makes the CA and both certificates in {@code dir}. */
    public static TestCertificates create(Path dir) {
        try {
            Files.createDirectories(dir);
            openssl(dir, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "ca.key", "-out", "ca.crt",
                    "-days", "3", "-subj", "/CN=outbox-relay-test-ca");
            signed(dir, "server", "/CN=localhost", "subjectAltName=DNS:localhost,IP:127.0.0.1");
            signed(dir, "client", "/CN=" + TestPostgres.RELAY_USER, "extendedKeyUsage=clientAuth");
            openssl(dir, "pkcs8", "-topk8", "-inform", "PEM", "-outform", "DER", "-nocrypt", "-in", "client.key",
                    "-out", "client.pk8");
        } catch (IOException e) {
            throw new UncheckedIOException("Could not make test certificates with openssl in " + dir, e);
        }
        return new TestCertificates(dir.resolve("ca.crt"), dir.resolve("server.crt"), dir.resolve("server.key"),
                dir.resolve("client.crt"), dir.resolve("client.pk8"));
    }

    /**
     * JDBC URL parameters that verify the server against the CA and its host name, and present the client
     * certificate: {@code sslmode=verify-full&sslrootcert=…&sslcert=…&sslkey=…}.
     */
    public String jdbcParameters() {
        return "sslmode=verify-full&sslrootcert=" + caCert + "&sslcert=" + clientCert + "&sslkey=" + clientKey;
    }

    private static void signed(Path dir, String name, String subject, String extension) throws IOException {
        openssl(dir, "req", "-newkey", "rsa:2048", "-nodes", "-keyout", name + ".key", "-out", name + ".csr",
                "-subj", subject);
        Files.writeString(dir.resolve(name + ".ext"), extension + "\n", StandardCharsets.UTF_8);
        openssl(dir, "x509", "-req", "-in", name + ".csr", "-CA", "ca.crt", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", name + ".crt", "-days", "3", "-extfile", name + ".ext");
    }

    private static void openssl(Path dir, String... args) throws IOException {
        // In dir, so the relative file names above (and -CAcreateserial's serial file) land there.
        List<String> command = new ArrayList<>(List.of("sh", "-c", "cd \"$0\" && exec \"$@\"", dir.toString(),
                "openssl"));
        command.addAll(List.of(args));
        OsCommands.runChecked(command, TIMEOUT);
    }
}
