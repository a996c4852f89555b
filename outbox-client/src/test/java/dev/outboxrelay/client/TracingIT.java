package dev.outboxrelay.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.ReadRecord;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.FactoryRelays;
import dev.outboxrelay.testkit.contract.RelayEnvironment;
import dev.outboxrelay.testkit.contract.RelayHandle;
import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.propagation.W3CTraceContextPropagator;
import io.opentelemetry.context.Scope;
import io.opentelemetry.context.propagation.ContextPropagators;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * One trace from the application to the topic: the writer takes the current span's context into the row, the relay
 * publishes under a PRODUCER span that is its child (with topic, partition and offset), and the record carries the
 * publish span's context for the consumer to continue.
 */
class TracingIT {

    private final InMemorySpanExporter exporter = InMemorySpanExporter.create();
    private OpenTelemetrySdk sdk;
    private TestDatabase database;

    @BeforeEach
    void setUp() throws Exception {
        sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder().addSpanProcessor(SimpleSpanProcessor.create(exporter))
                        .build())
                .setPropagators(ContextPropagators.create(W3CTraceContextPropagator.getInstance()))
                .build();
        GlobalOpenTelemetry.resetForTest(); // other tests of this JVM may have read it
        GlobalOpenTelemetry.set(sdk);
        database = TestPostgres.shared().createDatabase("tracing");
        try (Connection c = database.connect()) {
            OutboxSchema.migrator(OutboxTable.DEFAULT, OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
    }

    @AfterEach
    void tearDown() {
        GlobalOpenTelemetry.resetForTest();
        sdk.close();
        database.drop();
    }

    @Test
    void theRelaysPublishSpanIsAChildOfTheWritersSpanAndTheRecordCarriesIt() throws Exception {
        TestKafka kafka = TestKafka.shared();
        String topic = "tracing." + database.name();
        kafka.createTopic(topic, 2);
        Span place = sdk.getTracer("shop").spanBuilder("place order").startSpan();
        UUID id;
        try (Scope ignored = place.makeCurrent(); Connection c = database.connect()) {
            c.setAutoCommit(false);
            id = Outbox.forTable("outbox").append(c, Event.builder("Order", "o-1", "OrderPlaced").payload("{}")
                    .build());
            c.commit();
        } finally {
            place.end();
        }
        try (RelayHandle relay = FactoryRelays.start("poll", new RelayEnvironment(database, "public.outbox", kafka),
                Map.of("topic-template", topic, "poll-interval", "200ms"))) {
            List<ReadRecord> records = TopicReader.of(kafka).readUntilIds(topic, Set.of(id.toString()),
                    Duration.ofSeconds(60));
            assertThat(records).hasSize(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> exporter.getFinishedSpanItems().stream()
                    .anyMatch(s -> s.getName().equals("publish " + topic)));
            SpanData publish = exporter.getFinishedSpanItems().stream()
                    .filter(s -> s.getName().equals("publish " + topic)).findFirst().orElseThrow();
            assertThat(publish.getKind()).isEqualTo(SpanKind.PRODUCER);
            assertThat(publish.getTraceId()).isEqualTo(place.getSpanContext().getTraceId());
            assertThat(publish.getParentSpanId()).as("child of the writer's span")
                    .isEqualTo(place.getSpanContext().getSpanId());
            assertThat(publish.getAttributes().get(AttributeKey.stringKey("messaging.destination.name")))
                    .isEqualTo(topic);
            assertThat(publish.getAttributes().get(AttributeKey.stringKey("messaging.message.id")))
                    .isEqualTo(id.toString());
            assertThat(publish.getAttributes().get(AttributeKey.longKey("messaging.kafka.offset"))).isEqualTo(0L);
            assertThat(records.get(0).headers().get("traceparent")).as("the consumer continues from the publish")
                    .isEqualTo("00-" + publish.getTraceId() + "-" + publish.getSpanId() + "-"
                            + publish.getSpanContext().getTraceFlags().asHex());
        }
    }
}
