package dev.outboxrelay.bench;

import dev.outboxrelay.testkit.TestDatabase;
import java.io.IOException;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The real relay: {@code java -jar outbox-relay.jar run ...} as a subprocess, so its peak RSS (VmHWM) is its
 * own. Paused with SIGSTOP and resumed with SIGCONT, so that a CDC relay keeps its slot position and drains the
 * backlog from the WAL instead of rescanning the table as it would after a restart.
 */
final class RelayProcess extends SubprocessContender {

    /** The relay modes measured. */
    enum Mode {
        POLL_MARK("poll (mark)", "poll", "mark", false),
        POLL_DELETE("poll (delete)", "poll", "delete", false),
        CDC("cdc", "cdc", "mark", false),
        CDC_DELETE("cdc (delete)", "cdc", "delete", false),
        /** Issue 27: {@code --delivery exactly-once}, marking, next to the at-least-once modes. */
        POLL_EXACTLY_ONCE("poll (mark, exactly-once)", "poll", "mark", true),
        CDC_EXACTLY_ONCE("cdc (exactly-once)", "cdc", "mark", true);

        final String label;
        final String mode;
        final String onPublish;
        final boolean exactlyOnce;

        Mode(String label, String mode, String onPublish, boolean exactlyOnce) {
            this.label = label;
            this.mode = mode;
            this.onPublish = onPublish;
            this.exactlyOnce = exactlyOnce;
        }
    }

    private final Mode mode;
    private final Path jar;
    private final List<String> jvmOptions;
    private final List<String> relayArgs;
    private final TestDatabase database;
    private final String bootstrap;
    private final String topic;

    RelayProcess(Mode mode, Path jar, List<String> jvmOptions, List<String> relayArgs, TestDatabase database, String bootstrap, String topic,
                 Path log) {
        super(log);
        this.mode = mode;
        this.jar = jar;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.relayArgs = List.copyOf(relayArgs);
        this.database = database;
        this.bootstrap = bootstrap;
        this.topic = topic;
    }

    @Override
    public String name() {
        return mode.label;
    }

    @Override
    public void start() throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-jar", jar.toString(), "run", "--mode", mode.mode,
                "--db-url", database.jdbcUrl(), "--db-user", database.relayUser(),
                "--kafka-bootstrap", bootstrap, "--topic-template", topic, "--on-publish", mode.onPublish, "--http-port", "0"));
        if (mode.exactlyOnce) {
            // A relay name of the scenario's own: each scenario's database is fresh, and so must its position be.
            command.addAll(List.of("--delivery", "exactly-once", "--relay-name", "bench-" + database.name()));
        }
        command.addAll(relayArgs);
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put("RELAY_DB_PASSWORD", database.relayPassword());
        pb.redirectErrorStream(true);
        pb.redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        process = pb.start();
        if (mode.mode.equals("cdc")) {
            awaitSlotStreaming();
        }
        checkAlive();
    }

    private void awaitSlotStreaming() throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
        while (System.nanoTime() < deadline) {
            checkAlive();
            try (Connection c = database.connect(); Statement st = c.createStatement();
                 ResultSet rs = st.executeQuery("SELECT count(*) FROM pg_replication_slots WHERE active AND database = '"
                         + database.name() + "'")) {
                rs.next();
                if (rs.getLong(1) > 0) {
                    return;
                }
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("the CDC relay's slot was not streaming after 120 s; see " + log);
    }

    private void checkAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException("the relay exited with code " + process.exitValue() + ":\n" + ProcessStats.tail(log));
        }
    }

    @Override
    public void pause() throws Exception {
        checkAlive();
        signal("STOP");
    }

    @Override
    public void resume() throws Exception {
        signal("CONT");
        checkAlive();
    }

    /** Ends the relay with SIGKILL, as a crash or an OOM killer would, and waits until it is gone. */
    void kill() throws Exception {
        checkAlive();
        signal("KILL");
        process.waitFor();
    }

    @Override
    void stop() {
        try {
            signal("CONT"); // a stopped process would not handle SIGTERM
        } catch (IOException | InterruptedException | RuntimeException ignored) {
            // it may be gone already
        }
        process.destroy();
        try {
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
