package dev.outboxrelay.core;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
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
                await(release, 5); // a beat every 5 ms until released
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
            Awaitility.await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> assertThat(
                    Heartbeat.stalled(Duration.ofMillis(100))).hasValueSatisfying(what -> assertThat(what)
                    .startsWith("thread test-stuck made no progress for").endsWith(" s")));
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
        Awaitility.await().during(Duration.ofMillis(100)).atMost(Duration.ofSeconds(5))
                .until(() -> Heartbeat.stalled(Duration.ofMillis(1)).isEmpty());
    }

    private static void await(CountDownLatch latch) {
        await(latch, 30_000);
    }

    private static void await(CountDownLatch latch, long millis) {
        try {
            latch.await(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
