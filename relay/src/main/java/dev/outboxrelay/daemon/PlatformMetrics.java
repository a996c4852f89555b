package dev.outboxrelay.daemon;

import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Metrics;
import io.micrometer.core.instrument.binder.jvm.ClassLoaderMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmGcMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmInfoMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.FileDescriptorMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.core.instrument.binder.system.UptimeMetrics;
import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * What a platform team expects next to the relay's own metrics: JVM (memory, GC, threads, classes) and process
 * (CPU, open files, uptime) through Micrometer's binders, {@code outbox_relay_build_info}, and whatever the
 * sources bind to Micrometer's global registry (the Kafka producer's {@code kafka_producer_*}), which this
 * registry joins until {@link #close()}.
 */
final class PlatformMetrics implements AutoCloseable {

    private final MeterRegistry registry;
    private final JvmGcMetrics gc = new JvmGcMetrics();

    PlatformMetrics(MeterRegistry registry, String mode) {
        this.registry = registry;
        new ClassLoaderMetrics().bindTo(registry);
        new JvmMemoryMetrics().bindTo(registry);
        gc.bindTo(registry);
        new JvmThreadMetrics().bindTo(registry);
        new JvmInfoMetrics().bindTo(registry);
        new ProcessorMetrics().bindTo(registry);
        new FileDescriptorMetrics().bindTo(registry);
        new UptimeMetrics().bindTo(registry);
        Gauge.builder("outbox.relay.build.info", () -> 1).tags("version", version(), "mode", mode)
                .description("Always 1; the relay's version and mode as labels").register(registry);
        Metrics.addRegistry(registry);
    }

    /** The relay's version from the build, {@code unknown} when run from classes without it. */
    static String version() {
        try (InputStream in = PlatformMetrics.class.getResourceAsStream("/dev/outboxrelay/cli/version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    @Override
    public void close() {
        Metrics.removeRegistry(registry);
        gc.close();
    }
}
