package dev.outboxrelay.bench;

import dev.outboxrelay.testkit.TestDatabase;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * A baseline or a floor in its own JVM ({@link ChildMain}), started with the relay's JVM options, so that its CPU
 * and peak RSS are its own and compare with the relay's. Pause and resume go over the child's stdin (it parks at
 * its {@link Gate}); it answers on stdout; its log goes to a file.
 */
final class ChildContender extends SubprocessContender {

    private static final long START_SECONDS = 150;
    private static final long STEP_SECONDS = 60;

    private final String slug;
    private final String name;
    private final List<String> jvmOptions;
    private final TestDatabase database;
    private final String bootstrap;
    private final String topic;
    private final BlockingQueue<String> replies = new LinkedBlockingQueue<>();
    private Writer commands;

    ChildContender(String slug, List<String> jvmOptions, TestDatabase database, String bootstrap, String topic,
                   Path log) {
        super(log);
        this.slug = slug;
        this.name = ChildMain.name(slug);
        this.jvmOptions = List.copyOf(jvmOptions);
        this.database = database;
        this.bootstrap = bootstrap;
        this.topic = topic;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public void start() throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", System.getProperty("java.class.path"), ChildMain.class.getName(), slug,
                database.jdbcUrl(), database.host(), Integer.toString(database.port()), database.name(),
                database.relayUser(), bootstrap, topic));
        ProcessBuilder pb = new ProcessBuilder(command);
        pb.environment().put(ChildMain.PASSWORD_ENV, database.relayPassword());
        pb.redirectError(ProcessBuilder.Redirect.appendTo(log.toFile()));
        process = pb.start();
        commands = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    replies.add(line);
                }
            } catch (IOException e) {
                // the child is gone: awaitReply reports it
            }
        }, "bench-child-" + slug);
        reader.setDaemon(true);
        reader.start();
        awaitReply("ready", START_SECONDS);
    }

    @Override
    public void pause() throws Exception {
        send("pause");
        awaitReply("paused", STEP_SECONDS);
    }

    @Override
    public void resume() throws Exception {
        send("resume");
        awaitReply("resumed", STEP_SECONDS);
    }

    private void send(String command) throws IOException {
        commands.write(command + "\n");
        commands.flush();
    }

    private void awaitReply(String expected, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (System.nanoTime() < deadline) {
            String reply = replies.poll(200, TimeUnit.MILLISECONDS);
            if (expected.equals(reply)) {
                return;
            }
            if (reply != null && reply.startsWith(ChildMain.FAILED)) {
                throw new IllegalStateException(name + " failed: " + reply.substring(ChildMain.FAILED.length())
                        + "\n" + ProcessStats.tail(log));
            }
            if (reply == null && !process.isAlive() && replies.isEmpty()) {
                throw new IllegalStateException(name + " exited with code " + process.exitValue() + ":\n" + ProcessStats.tail(log));
            }
        }
        throw new IllegalStateException(name + " did not answer '" + expected + "' within " + seconds + " s; see "
                + log);
    }

    @Override
    void stop() {
        try {
            send("close");
            if (!process.waitFor(STEP_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            }
        } catch (IOException e) {
            process.destroyForcibly(); // stdin gone: the child is gone or stuck
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
