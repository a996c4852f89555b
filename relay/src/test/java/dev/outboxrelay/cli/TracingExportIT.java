package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The shipped jar exports spans when configured the usual way ({@code OTEL_TRACES_EXPORTER}), here with the SDK's
 * logging exporter: the publish span of a row lands in the row's trace. Without the variable nothing is exported
 * (the other tests run the jar that way).
 */
class TracingExportIT {

    private static final String TRACE_ID = "4bf92f3577b34da6a3ce929d0e0e4736";

    private PublishingRelay started;

    @AfterEach
    void tearDown() throws Exception {
        if (started != null) {
            started.close();
        }
    }

    @Test
    void withATracesExporterSetThePublishSpanIsExportedInTheRowsTrace() throws Exception {
        TestKafka kafka = TestKafka.shared();
        String topic = "tracing-export." + UUID.randomUUID();
        kafka.createTopic(topic, 1);
        started = PublishingRelay.of("tracing-export", "poll").kafka(kafka).env(Map.of("OTEL_TRACES_EXPORTER",
                "logging", "OTEL_SERVICE_NAME", "orders-relay")).args("--topic-template", topic).start();
        TestDatabase database = started.database;
        RelayProcess relay = started.relay;
        UUID id = UUID.randomUUID();
        new OutboxWriter(database, "public.outbox").insert(List.of(new OutboxWriter.Row(id, "Order", "o-1",
                "OrderPlaced", "{}", "{\"traceparent\": \"00-" + TRACE_ID + "-00f067aa0ba902b7-01\"}")));
        TopicReader.of(kafka).readUntilIds(topic, Set.of(id.toString()), Duration.ofSeconds(60));
        await().atMost(Duration.ofSeconds(20)).until(() -> relay.logText().contains("'publish " + topic + "'"));
        assertThat(relay.logText()).contains("Tracing: a span per published event, exported with 'logging'")
                .containsPattern("'publish " + topic.replace(".", "\\.") + "' : " + TRACE_ID + " [0-9a-f]{16} PRODUCER");
    }
}
