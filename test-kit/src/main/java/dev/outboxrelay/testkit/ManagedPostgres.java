package dev.outboxrelay.testkit;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One throwaway PostgreSQL cluster in a temporary directory: {@code initdb}, start, stop, delete.
 *
 * <p>The postmaster is started through a tiny {@code sh} wrapper that also forks a watchdog. The watchdog
 * blocks reading the wrapper's stdin, a pipe whose only writer is this JVM; when the JVM goes away for any
 * reason, including {@code kill -9} where no shutdown hook runs, the pipe reaches EOF and the watchdog sends
 * the postmaster SIGQUIT (PostgreSQL's "immediate shutdown") and deletes the directory. A normal stop uses
 * {@code pg_ctl stop -m immediate}; the JVM closes the pipe by itself once the postmaster has exited, which
 * lets the watchdog delete the directory too, and we delete whatever is left.
 */
final class ManagedPostgres {

    private static final Logger LOG = LoggerFactory.getLogger(ManagedPostgres.class);
    private static final String LOOPBACK = "127.0.0.1";
    private static final int BIND_ATTEMPTS = 3;

    // $1 = cluster directory, $2 = postgres binary, the rest = postgres arguments. Inside the background
    // subshell $$ is still the wrapper's pid, which after "exec" is the postmaster's.
    private static final String WRAPPER = String.join("\n",
            "dir=$1; bin=$2; shift 2",
            "exec 3<&0",
            "( cat <&3 >/dev/null; kill -QUIT $$ 2>/dev/null;",
            "  while kill -0 $$ 2>/dev/null; do sleep 0.1; done; rm -rf \"$dir\" ) </dev/null >/dev/null 2>&1 &",
            "exec 3<&-",
            "exec \"$bin\" -D \"$dir/data\" \"$@\" </dev/null >>\"$dir/postgres.log\" 2>&1");

    /** Per server binaries: the initdb'd data directory that new clusters copy ({@link #template}). */
    private static final java.util.Map<Path, Path> TEMPLATES = new java.util.HashMap<>();

    private final Path bin;
    private final Path dir;
    private final String osUser;
    private int port;
    private Process process;
    // One per launch attempt: closing a watchdog's pipe deletes the directory, so only stop() may close them.
    private final List<OutputStream> lifelines = new ArrayList<>();
    private long logOffset;
    private boolean stopped;

    private ManagedPostgres(Path bin, Path dir, String osUser) {
        this.bin = bin;
        this.dir = dir;
        this.osUser = osUser;
    }

    /** Runs initdb, writes pg_hba.conf, starts the server and waits until it accepts connections. */
    static ManagedPostgres start(Path bin, PostgresOptions options) throws IOException {
        String osUser = OsCommands.serverUser();
        Path base = OsCommands.reachableByServer(
                options.baseDir() != null ? options.baseDir() : Path.of(System.getProperty("java.io.tmpdir")));
        Path dir = Files.createTempDirectory(base, "outbox-pg-");
        ManagedPostgres pg = new ManagedPostgres(bin, dir, osUser);
        try {
            OsCommands.giveToServerUser(dir);
            pg.initdb(options.tls());
            pg.launch(options);
            return pg;
        } catch (IOException | RuntimeException e) {
            pg.stop();
            throw e;
        }
    }

    /**
     * Copies {@code primary} ({@link BaseBackup}) and starts the copy as a hot standby that streams from it through
     * physical slot {@code slot}, with {@code hot_standby_feedback} on; logical slots are not copied, as on a real
     * standby. {@code options} may add settings, e.g. {@code sync_replication_slots}.
     */
    static ManagedPostgres startStandby(ManagedPostgres primary, String slot, PostgresOptions options)
            throws IOException {
        Path dir = Files.createTempDirectory(primary.dir.getParent(), "outbox-pg-");
        ManagedPostgres pg = new ManagedPostgres(primary.bin, dir, primary.osUser);
        try (Connection c = primary.connect("postgres")) {
            BaseBackup.copy(c, primary.dir.resolve("data"), dir.resolve("data"), slot);
            OsCommands.giveToServerUser(dir);
            // dbname: a standby synchronizing logical slots connects to a database; plain streaming ignores it.
            pg.launch(options.withSetting("primary_conninfo", "host=" + LOOPBACK + " port=" + primary.port
                            + " user=" + TestPostgres.SUPER_USER + " dbname=postgres application_name=" + slot)
                    .withSetting("primary_slot_name", slot)
                    .withSetting("hot_standby_feedback", "on"));
            return pg;
        } catch (IOException | SQLException | RuntimeException e) {
            pg.stop();
            throw e instanceof IOException io ? io : new IOException("Could not start a standby of port "
                    + primary.port, e);
        }
    }

    int port() {
        return port;
    }

    Path directory() {
        return dir;
    }

    String osUser() {
        return osUser == null ? System.getProperty("user.name") : osUser;
    }

    private void initdb(TestCertificates tls) throws IOException {
        long started = System.nanoTime();
        // A copy of a cluster initdb made once per server version and JVM: initdb costs about 1 CPU-second, a copy
        // of its 40 MB a third of that, and the suite starts some 150 servers.
        Path template = template(bin, dir.getParent());
        OsCommands.runChecked(OsCommands.asServerUser(List.of("cp", "-a", template.toString(),
                dir.resolve("data").toString())), Duration.ofMinutes(2));
        if (tls == null) {
            writeHba();
        } else {
            installTls(tls);
        }
        LOG.debug("initdb {} took {} ms", dir, TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    /**
     * The data directory of a never started cluster of {@code bin}'s version, made on first use in {@code base} and
     * deleted when the JVM exits. Copies of it differ from fresh clusters only in sharing a system identifier, which
     * no test compares between clusters (a standby is a base backup of its primary either way).
     */
    private static Path template(Path bin, Path base) throws IOException {
        synchronized (TEMPLATES) {
            Path known = TEMPLATES.get(bin);
            if (known != null) {
                return known;
            }
            Path dir = Files.createTempDirectory(base, "outbox-pg-template-");
            Runtime.getRuntime().addShutdownHook(new Thread(() -> OsCommands.deleteTree(dir)));
            OsCommands.giveToServerUser(dir);
            // -U postgres: the superuser is called "postgres" whatever OS user we run as; --no-sync: a throwaway
            // cluster does not need its files flushed, and it saves a second or two.
            OsCommands.runChecked(OsCommands.asServerUser(List.of(bin.resolve("initdb").toString(),
                    "-D", dir.resolve("data").toString(), "-U", TestPostgres.SUPER_USER, "-A", "trust",
                    "-E", "UTF8", "--locale=C", "--no-sync")), Duration.ofMinutes(2));
            TEMPLATES.put(bin, dir.resolve("data"));
            return dir.resolve("data");
        }
    }

    private void writeHba() throws IOException {
        // First match wins. The relay role must prove its password (tests check bad-credential errors);
        // "all" does not cover replication connections, hence the separate replication lines.
        String relay = TestPostgres.RELAY_USER;
        String hba = String.join("\n",
                "# written by outbox-relay test-kit",
                "local all         all                     trust",
                "host  all         " + relay + " 127.0.0.1/32 scram-sha-256",
                "host  replication " + relay + " 127.0.0.1/32 scram-sha-256",
                "host  all         all   127.0.0.1/32 trust",
                "host  replication all   127.0.0.1/32 trust",
                "");
        // The file exists already (initdb made it), so overwriting keeps its owner.
        Files.writeString(dir.resolve("data").resolve("pg_hba.conf"), hba, StandardCharsets.UTF_8);
    }

    /**
     * TCP over TLS only ({@code hostssl}, no {@code host} line): the relay role proves itself with its client
     * certificate ({@code cert}), other roles as before; the server's files go into the data directory, the key
     * readable by the server user only, as PostgreSQL demands.
     */
    private void installTls(TestCertificates tls) throws IOException {
        Path data = dir.resolve("data");
        Files.copy(tls.serverCert(), data.resolve("server.crt"));
        Files.copy(tls.serverKey(), data.resolve("server.key"));
        Files.copy(tls.caCert(), data.resolve("root.crt"));
        String relay = TestPostgres.RELAY_USER;
        Files.writeString(data.resolve("pg_hba.conf"), String.join("\n",
                "# written by outbox-relay test-kit: TLS only",
                "local   all         all                     trust",
                "hostssl all         " + relay + " 127.0.0.1/32 cert",
                "hostssl replication " + relay + " 127.0.0.1/32 cert",
                "hostssl all         all   127.0.0.1/32 trust",
                "hostssl replication all   127.0.0.1/32 trust",
                ""), StandardCharsets.UTF_8);
        OsCommands.giveToServerUser(data);
        Files.setPosixFilePermissions(data.resolve("server.key"), java.nio.file.attribute.PosixFilePermissions
                .fromString("rw-------"));
    }

    private void launch(PostgresOptions options) throws IOException {
        for (int attempt = 1; ; attempt++) {
            port = options.port() > 0 ? options.port() : freePort();
            List<String> command = new ArrayList<>(List.of("sh", "-c", WRAPPER, "outbox-pg",
                    dir.toString(), bin.resolve("postgres").toString()));
            settings(options).forEach((k, v) -> {
                command.add("-c");
                command.add(k + "=" + v);
            });
            logOffset = logSize();
            process = new ProcessBuilder(OsCommands.asServerUser(command))
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            lifelines.add(process.getOutputStream());
            try {
                awaitReady(options.startTimeout());
                LOG.info("PostgreSQL started on {}:{} in {} as OS user {} ({})", LOOPBACK, port, dir, osUser(), bin);
                return;
            } catch (PortTakenException e) {
                // Another process grabbed the port between freePort() and bind(); pick another one.
                if (options.port() > 0 || attempt >= BIND_ATTEMPTS) {
                    throw new IOException("PostgreSQL could not bind port " + port + ":\n" + logTail(), e);
                }
                LOG.debug("Port {} was taken, retrying", port);
            }
        }
    }

    private Map<String, String> settings(PostgresOptions options) {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("listen_addresses", LOOPBACK);
        s.put("port", Integer.toString(port));
        s.put("unix_socket_directories", dir.toString());
        s.put("wal_level", "logical");
        s.put("max_replication_slots", "20");
        s.put("max_wal_senders", "20");
        s.put("max_connections", "300");
        s.put("shared_buffers", "128MB");
        // Durability is worthless for a cluster that is deleted at exit, and these make it much faster.
        s.put("fsync", "off");
        s.put("full_page_writes", "off");
        // But commits write their WAL at once, as by default: a logical walsender streams only written-out WAL, and
        // with asynchronous commit every CDC event waited up to 400 ms for the WAL writer (p50 159 ms).
        s.put("synchronous_commit", "on");
        s.put("password_encryption", "scram-sha-256");
        s.put("timezone", "UTC");
        s.put("log_timezone", "UTC");
        if (options.tls() != null) {
            s.put("ssl", "on");
            s.put("ssl_cert_file", "server.crt");
            s.put("ssl_key_file", "server.key");
            s.put("ssl_ca_file", "root.crt");
        }
        s.putAll(options.settings());
        return s;
    }

    /** A superuser connection to {@code database} over TCP. */
    private Connection connect(String database) throws SQLException {
        Properties props = new Properties();
        props.setProperty("user", TestPostgres.SUPER_USER);
        props.setProperty("connectTimeout", "2");
        return DriverManager.getConnection("jdbc:postgresql://" + LOOPBACK + ":" + port + "/" + database, props);
    }

    private void awaitReady(Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        SQLException last = null;
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                String log = logTail();
                if (log.contains("could not bind") || log.contains("Address already in use")) {
                    throw new PortTakenException();
                }
                throw new IOException("PostgreSQL exited with code " + process.exitValue() + " during startup:\n" + log);
            }
            try (Connection ignored = connect("postgres")) {
                return;
            } catch (SQLException e) {
                last = e; // refused or "starting up": not ready yet
            }
            sleep(50);
        }
        throw new IOException("PostgreSQL did not accept connections within " + timeout + ":\n" + logTail(), last);
    }

    /** Stops the server (immediate mode: no checkpoint, the data is thrown away anyway) and deletes its files. */
    synchronized void stop() {
        if (stopped) {
            return;
        }
        stopped = true;
        if (process != null && process.isAlive()) {
            try {
                OsCommands.Result r = OsCommands.run(OsCommands.asServerUser(List.of(bin.resolve("pg_ctl").toString(),
                        "stop", "-D", dir.resolve("data").toString(), "-m", "immediate", "-w", "-t", "20")),
                        Duration.ofSeconds(30));
                // The JVM closes our end of the watchdog's pipe as soon as the postmaster exits, so the
                // watchdog may delete the directory while pg_ctl still polls it ("not a database cluster
                // directory" once PG_VERSION is gone): that is a success too.
                if (!r.ok() && Files.exists(dir.resolve("data").resolve("PG_VERSION"))) {
                    LOG.warn("pg_ctl stop failed ({}): {}", r.exitCode(), r.output().trim());
                }
                if (!process.waitFor(10, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (IOException e) {
                LOG.warn("pg_ctl stop failed", e);
                process.destroyForcibly();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
        for (OutputStream lifeline : lifelines) {
            // Releases the watchdogs (the JDK usually did already, when their wrapper exited). The postmaster
            // is gone by now; its SIGQUIT could only hit a process of the server user that reused the pid.
            try {
                lifeline.close();
            } catch (IOException ignored) {
                // the watchdog sees EOF either way once we exit
            }
        }
        OsCommands.deleteTree(dir);
    }

    /** The end of what the current launch attempt wrote to the server log, for error messages. */
    String logTail() {
        Path log = dir.resolve("postgres.log");
        try {
            byte[] bytes = Files.readAllBytes(log);
            int from = (int) Math.min(logOffset, bytes.length);
            List<String> lines = new String(bytes, from, bytes.length - from, StandardCharsets.UTF_8).lines().toList();
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no server log at " + log + ")";
        }
    }

    private long logSize() {
        try {
            return Files.size(dir.resolve("postgres.log"));
        } catch (IOException e) {
            return 0;
        }
    }

    private static int freePort() {
        return TestPorts.reserve();
    }

    private static void sleep(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("Interrupted while waiting for PostgreSQL", e);
        }
    }

    /** The chosen port was taken by someone else before the postmaster bound it. */
    private static final class PortTakenException extends IOException {
        PortTakenException() {
            super("port taken");
        }
    }
}
