package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.ItLogs;
import dev.outboxrelay.testkit.Pacing;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No zombie: an {@link Error} in the thread that publishes (injected by {@link ErrorInjectingInterceptor}) makes
 * the relay exit non-zero within 10 s, releasing the table's relay lock, and a standby relay takes over with
 * nothing lost.
 */
class WorkerErrorIT {

    private static final Pattern INJECTED = Pattern.compile("injecting an Error at (\\d+)");

    private PublishingRelay started;
    private RelayProcess standby;

    @AfterEach
    void tearDown() throws Exception {
        if (standby != null) {
            standby.close();
        }
        if (started != null) {
            started.close();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"poll", "cdc"})
    void anErrorInTheWorkerStopsTheProcessAndTheStandbyTakesOver(String mode) throws Exception {
        TestKafka kafka = TestKafka.shared();
        String topic = "worker-error-" + mode + "." + UUID.randomUUID();
        kafka.createTopic(topic, 3);
        String[] args = {"--topic-template", topic, "--relay-name", "worker-error", "--standby-interval", "500ms"};
        started = PublishingRelay.of("worker-error-" + mode + "-a", mode).kafka(kafka)
                .jvm(List.of("-D" + ErrorInjectingInterceptor.AFTER + "=300")).withTestClasses()
                .args(args).args("--kafka.interceptor.classes=" + ErrorInjectingInterceptor.class.getName()).start();
        RelayProcess failing = started.relay;
        TestDatabase database = started.database;
        // A name's log is appended to within a run (ItLogs): the standby starts on an empty log too.
        java.nio.file.Files.deleteIfExists(ItLogs.file("worker-error-" + mode + "-b"));
        // The standby runs without the failing interceptor: the same relay options but that one.
        String[] standbyArgs = concat(args, "--mode", mode);
        if (mode.equals("cdc")) {
            standbyArgs = concat(standbyArgs, "--slot-name", PublishingRelay.slotOf(database));
        }
        standby = RelayProcess.run("worker-error-" + mode + "-b", database, kafka, java.util.Map.of(), standbyArgs);
        await().atMost(Duration.ofSeconds(60)).until(() -> standby.readiness().contains("\"status\""));

        OutboxWriter writer = new OutboxWriter(database, "public.outbox");
        List<String> ids = new ArrayList<>();
        for (int round = 0; round < 20; round++) {
            List<OutboxWriter.Row> rows = new ArrayList<>();
            for (int i = 0; i < 50; i++) {
                rows.add(OutboxWriter.Row.of("Order", "k-" + (i % 20), round * 50 + i));
            }
            ids.addAll(writer.insert(rows));
            Pacing.pause(50); // 1,000 events/s in 50-row transactions
        }
        await().atMost(Duration.ofSeconds(60)).until(() -> INJECTED.matcher(failing.logText()).find());
        Matcher m = INJECTED.matcher(failing.logText());
        assertThat(m.find()).isTrue();
        long injectedAt = Long.parseLong(m.group(1));
        assertThat(failing.process.waitFor(15, TimeUnit.SECONDS)).as("the failing relay exits").isTrue();
        long exitedWithin = System.currentTimeMillis() - injectedAt;
        assertThat(failing.process.exitValue()).as("exit code").isNotZero();
        assertThat(exitedWithin).as("ms from the Error to the exit (measured after it)").isLessThan(10_000);
        assertThat(failing.logText()).contains("Stopping the relay");

        List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(topic, new HashSet<>(ids), Duration.ofSeconds(90));
        DeliveryReport report = DeliveryReport.of(records, ids);
        assertThat(report.atLeastOnceInOrder()).as("%s", report).isTrue();
        await().atMost(Duration.ofSeconds(30)).until(() -> writer.unsent() == 0);
        assertThat(standby.readiness()).contains("\"role\":\"active\"");
    }

    private static String[] concat(String[] a, String... b) {
        String[] all = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, all, a.length, b.length);
        return all;
    }
}
