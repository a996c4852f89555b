package dev.outboxrelay.daemon;

import io.opentelemetry.api.GlobalOpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.AutoConfiguredOpenTelemetrySdk;
import io.opentelemetry.sdk.autoconfigure.spi.ConfigurationException;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Installs OpenTelemetry's SDK, configured the usual way ({@code OTEL_*} variables or {@code otel.*} system
 * properties), when traces are to be exported: {@code OTEL_TRACES_EXPORTER} set to something other than
 * {@code none}. Otherwise nothing is installed and publishing records no spans at all. Metrics and logs are not
 * exported through OpenTelemetry unless asked for (the relay has /metrics and its log).
 */
public final class Tracing implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Tracing.class);

    private final OpenTelemetrySdk sdk;

    private Tracing(OpenTelemetrySdk sdk) {
        this.sdk = sdk;
    }

    /** Installs the SDK as the global OpenTelemetry if {@code environment} asks for a traces exporter. */
    public static Optional<Tracing> install(Map<String, String> environment) {
        String exporter = Optional.ofNullable(System.getProperty("otel.traces.exporter"))
                .orElse(environment.get("OTEL_TRACES_EXPORTER"));
        if (exporter == null || exporter.isBlank() || exporter.trim().toLowerCase(Locale.ROOT).equals("none")) {
            return Optional.empty();
        }
        OpenTelemetrySdk sdk;
        try {
            sdk = AutoConfiguredOpenTelemetrySdk.builder()
                    // Defaults only: OTEL_* variables and otel.* system properties win. OTLP over HTTP: the jar
                    // bundles the JDK's HTTP client as sender, not a gRPC stack.
                    .addPropertiesSupplier(() -> Map.of("otel.service.name", "outbox-relay",
                            "otel.exporter.otlp.protocol", "http/protobuf",
                            "otel.metrics.exporter", "none", "otel.logs.exporter", "none"))
                    .build().getOpenTelemetrySdk();
        } catch (ConfigurationException e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new IllegalStateException("OpenTelemetry configuration (OTEL_* variables): " + cause.getMessage(),
                    e);
        }
        GlobalOpenTelemetry.set(sdk);
        LOG.info("Tracing: a span per published event, exported with '{}'", exporter.trim());
        return Optional.of(new Tracing(sdk));
    }

    /** Flushes and ends the exporters, waiting a bounded time. */
    @Override
    public void close() {
        sdk.shutdown().join(Duration.ofSeconds(10).toMillis(), TimeUnit.MILLISECONDS);
    }
}
