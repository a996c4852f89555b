package dev.outboxrelay.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.core.OutboxSource;
import dev.outboxrelay.core.SourceFactory;
import dev.outboxrelay.core.SourceInspector;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.Throughout;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

class WatchdogTest {

    @Test
    void aSourceThatDiedIsReportedOnce() throws Exception {
        AtomicReference<Throwable> died = new AtomicReference<>();
        CompletableFuture<Throwable> reported = new CompletableFuture<>();
        try (Watchdog w = Watchdog.start(() -> Optional.ofNullable(died.get()), reported::complete)) {
            Throughout.holds("nothing reported while the worker is well", Duration.ofMillis(700),
                    () -> !reported.isDone());
            died.set(new OutOfMemoryError("test"));
            assertThat(reported.get(5, TimeUnit.SECONDS)).isInstanceOf(OutOfMemoryError.class);
        }
    }

    @Test
    void aWorkerStuckPastTheBoundCountsAsDead() throws Exception {
        AtomicReference<String> stuck = new AtomicReference<>();
        CompletableFuture<Throwable> reported = new CompletableFuture<>();
        try (Watchdog w = Watchdog.start(Watchdog.orStalled(Optional::empty,
                bound -> Optional.ofNullable(stuck.get()).map(t -> t + " (bound " + bound.toMinutes() + " min)"),
                Duration.ofMinutes(3)), reported::complete)) {
            Throughout.holds("nothing reported while the worker is well", Duration.ofMillis(700),
                    () -> !reported.isDone());
            stuck.set("thread outbox-relay-poll made no progress for 181 s");
            assertThat(reported.get(5, TimeUnit.SECONDS)).isInstanceOf(IllegalStateException.class)
                    .hasMessage("a worker is stuck: thread outbox-relay-poll made no progress for 181 s (bound 3 min)");
        }
    }

    @Test
    void anErrorEndingAnyThreadIsFatalAnExceptionIsNot() throws Exception {
        CompletableFuture<Throwable> reported = new CompletableFuture<>();
        try (Watchdog w = Watchdog.start(Optional::empty, reported::complete)) {
            Thread ex = new Thread(() -> {
                throw new IllegalStateException("a bug a thread may die of without stopping the relay");
            }, "test-exception");
            ex.start();
            ex.join();
            assertThat(reported).isNotDone();
            Thread err = new Thread(() -> {
                throw new StackOverflowError("test");
            }, "test-error");
            err.start();
            err.join();
            assertThat(reported.get(5, TimeUnit.SECONDS)).hasMessageContaining("thread test-error died")
                    .hasCauseInstanceOf(StackOverflowError.class);
        }
        assertThat(Thread.getDefaultUncaughtExceptionHandler()).as("restored on close").isNull();
    }

    @Test
    void aDaemonWhoseSourceDiedStopsAsFailed() throws Exception {
        AtomicReference<Throwable> died = new AtomicReference<>();
        OutboxSource source = new OutboxSource() {
            @Override
            public void start() {
            }

            @Override
            public boolean isHealthy() {
                return died.get() == null;
            }

            @Override
            public Optional<Throwable> failure() {
                return Optional.ofNullable(died.get());
            }

            @Override
            public void close() {
            }
        };
        RelayDaemon d = RelayDaemon.create(new DaemonSettings("poll", "r", OutboxTable.DEFAULT,
                SourceFactory.Coordination.SOURCE, SourceInspector.none(), List.of(), "127.0.0.1", 0,
                Duration.ofSeconds(30), Duration.ofSeconds(1), Duration.ofSeconds(1), new ConnectionFactory() {
                    @Override
                    public Connection open(Properties extra) {
                        throw new IllegalStateException("no database in a unit test");
                    }

                    @Override
                    public String target() {
                        return "nowhere";
                    }
                }, Map.of("bootstrap.servers", "127.0.0.1:1")), listener -> source);
        d.start();
        died.set(new InternalError("injected"));
        long t0 = System.nanoTime();
        CompletableFuture.runAsync(() -> {
            try {
                d.awaitStopRequest();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }).get(10, TimeUnit.SECONDS);
        assertThat(d.failure()).containsInstanceOf(InternalError.class);
        assertThat(d.stop()).as("a failed daemon does not stop clean").isFalse();
        assertThat(d.state()).isEqualTo(DaemonState.FAILED);
        assertThat(Duration.ofNanos(System.nanoTime() - t0)).isLessThan(Duration.ofSeconds(10));
    }
}
