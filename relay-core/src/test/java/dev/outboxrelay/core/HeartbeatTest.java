package dev.outboxrelay.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

class HeartbeatTest {

    @Test
    void aWatchedThreadThatStopsBeatingIsReportedOneThatBeatsOrIsNotWatchedIsNot() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch watching = new CountDownLatch(2);
        Thread stuck = new Thread(() -> {
            Heartbeat.watch();
            watching.countDown();
            await(release); // blocked in one call: no beats
            Heartbeat.unwatch();
        }, "test-stuck");
        Thread busy = new Thread(() -> {
            Heartbeat.watch();
            watching.countDown();
            while (release.getCount() > 0) {
                Heartbeat.beat();
                sleep(5);
            }
            Heartbeat.unwatch();
        }, "test-busy");
        Thread unwatched = new Thread(() -> await(release), "test-unwatched");
        stuck.start();
        busy.start();
        unwatched.start();
        try {
            watching.await(5, TimeUnit.SECONDS);
            assertThat(Heartbeat.stalled(Duration.ofSeconds(10))).as("within the bound").isEmpty();
            Thread.sleep(150);
            assertThat(Heartbeat.stalled(Duration.ofMillis(100))).hasValueSatisfying(what -> assertThat(what)
                    .startsWith("thread test-stuck made no progress for").endsWith(" s"));
        } finally {
            release.countDown();
            stuck.join();
            busy.join();
            unwatched.join();
        }
        assertThat(Heartbeat.stalled(Duration.ofMillis(100))).as("unwatched when done").isEmpty();
    }

    @Test
    void aWatchedThreadThatEndedIsForgottenNotStuck() throws Exception {
        Thread ended = new Thread(Heartbeat::watch, "test-ended");
        ended.start();
        ended.join();
        Thread.sleep(20);
        assertThat(Heartbeat.stalled(Duration.ofMillis(1))).isEmpty();
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
