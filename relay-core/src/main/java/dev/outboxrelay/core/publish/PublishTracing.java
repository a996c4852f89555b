package dev.outboxrelay.core.publish;

import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.api.common.AttributeKey;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapPropagator;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;

/**
 * A PRODUCER span per published record when an OpenTelemetry SDK is installed (no-op otherwise): a child of the
 * row's trace context ({@code traceparent} header, written by the application with its event), named
 * {@code publish <topic>}, ended when Kafka answers with the partition and offset; the record carries the new span's
 * context instead of the row's, so consumers continue the trace from the publish.
 */
final class PublishTracing {

    static final AttributeKey<String> SYSTEM = AttributeKey.stringKey("messaging.system");
    static final AttributeKey<String> OPERATION = AttributeKey.stringKey("messaging.operation.type");
    static final AttributeKey<String> DESTINATION = AttributeKey.stringKey("messaging.destination.name");
    static final AttributeKey<String> PARTITION = AttributeKey.stringKey("messaging.destination.partition.id");
    static final AttributeKey<Long> OFFSET = AttributeKey.longKey("messaging.kafka.offset");
    static final AttributeKey<String> MESSAGE_ID = AttributeKey.stringKey("messaging.message.id");

    private static final TextMapGetter<Headers> GETTER = new TextMapGetter<>() {
        @Override
        public Iterable<String> keys(Headers headers) {
            List<String> keys = new ArrayList<>();
            headers.forEach(h -> keys.add(h.key()));
            return keys;
        }

        @Override
        public String get(Headers headers, String key) {
            Header h = headers == null ? null : headers.lastHeader(key);
            return h == null || h.value() == null ? null : new String(h.value(), StandardCharsets.UTF_8);
        }
    };

    private static final TextMapSetter<Headers> SETTER = (headers, key, value) -> {
        headers.remove(key);
        headers.add(key, value.getBytes(StandardCharsets.UTF_8));
    };

    private final Tracer tracer;
    private final TextMapPropagator propagator;

    private PublishTracing(OpenTelemetry otel) {
        this.tracer = otel.getTracer("dev.outboxrelay");
        this.propagator = otel.getPropagators().getTextMapPropagator();
    }

    static PublishTracing of(OpenTelemetry otel) {
        return new PublishTracing(otel);
    }

    /** Starts the record's span and puts its context on the record; an invalid (no-op) span changes nothing. */
    Span start(ProducerRecord<byte[], byte[]> record) {
        Context parent = propagator.extract(Context.root(), record.headers(), GETTER);
        Span span = tracer.spanBuilder("publish " + record.topic()).setSpanKind(SpanKind.PRODUCER).setParent(parent)
                .setAttribute(SYSTEM, "kafka").setAttribute(OPERATION, "publish")
                .setAttribute(DESTINATION, record.topic())
                .setAttribute(MESSAGE_ID, GETTER.get(record.headers(), "id"))
                .startSpan();
        if (span.getSpanContext().isValid()) {
            propagator.inject(parent.with(span), record.headers(), SETTER);
        }
        return span;
    }

    /** Ends the span with Kafka's answer. */
    static void end(Span span, RecordMetadata metadata, Throwable error) {
        if (error != null) {
            span.recordException(error);
            span.setStatus(StatusCode.ERROR, error.getClass().getSimpleName());
        } else if (metadata != null) {
            span.setAttribute(PARTITION, Integer.toString(metadata.partition()));
            span.setAttribute(OFFSET, metadata.offset());
        }
        span.end();
    }
}
