package dev.outboxrelay.client;

import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanContext;

/**
 * The W3C {@code traceparent} of OpenTelemetry's current span. Only loaded after {@link Outbox} found the
 * OpenTelemetry API on the class path, so the writer needs nothing at run time when the application has none.
 */
final class OpenTelemetryTrace {

    private OpenTelemetryTrace() {
    }

    /** {@code 00-<trace id>-<span id>-<flags>}, or null when there is no valid current span. */
    static String currentTraceparent() {
        SpanContext c = Span.current().getSpanContext();
        if (!c.isValid()) {
            return null;
        }
        return "00-" + c.getTraceId() + "-" + c.getSpanId() + "-" + c.getTraceFlags().asHex();
    }
}
