package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import dev.outboxrelay.testkit.contract.Workload;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * SIGTERM to the real daemon while events stream in: it finishes and marks the in-flight batch and exits 0;
 * a restarted relay continues, and the consumer sees every event exactly once, in per-key order.
 */
class GracefulShutdownIT {

    private PublishingRelay first;
    private PublishingRelay second;

    @AfterEach
    void tearDown() throws Exception {
        if (second != null) {
            second.close();
        }
        if (first != null) {
            first.close();
        }
    }

    @Test
    void sigtermDuringLoadDrainsExitsZeroAndARestartDuplicatesNothing() throws Exception {
        TestKafka kafka = TestKafka.shared();
        String topic = "sigterm-it.Stream";
        kafka.createTopic(topic, 3);
        String[] args = {"--topic-template", "sigterm-it.${aggregateType}", "--batch-size", "200",
            "--poll-interval", "100ms", "--shutdown-timeout", "30s"};
        first = PublishingRelay.of("sigterm-1", "poll").kafka(kafka).args(args).start();
        TestDatabase database = first.database;
        RelayProcess relay = first.relay;

        Workload load = Workload.start(new OutboxWriter(database, "public.outbox"), "Stream", 10, 1000, 4, 100);
        await().atMost(Duration.ofSeconds(60)).until(() ->
                database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NOT NULL") > 500);
        int exit = relay.terminate(Duration.ofSeconds(45));
        assertThat(exit).as("exit code after SIGTERM (-1: still running); log:%n%s", relay.logText()).isZero();
        assertThat(load.isDone()).as("SIGTERM arrived while events were still being written").isFalse();
        assertThat(relay.logText()).contains("Stopping: taking no new work", "Stopped");

        second = PublishingRelay.of("sigterm-2", "poll").on(database).kafka(kafka).args(args).start();
        relay = second.relay;
        List<String> expected = load.join();
        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(topic, new HashSet<>(expected),
                Duration.ofMinutes(2));
        await().atMost(Duration.ofMinutes(1)).until(() ->
                database.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL") == 0);
        records = TopicReader.of(kafka).readAll(topic);
        DeliveryReport report = DeliveryReport.of(records, expected);
        System.out.printf("graceful restart: %d events, %s%n", expected.size(), report);
        assertThat(report.exactlyOnce()).as("%s", report).isTrue();
        assertThat(relay.terminate(Duration.ofSeconds(45))).isZero();
    }
}
