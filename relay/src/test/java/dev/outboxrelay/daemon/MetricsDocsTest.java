package dev.outboxrelay.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.core.SourceFactory;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.ServiceLoader;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The operator guide's metrics table lists exactly the metrics the daemon exposes, under their exposed names. */
class MetricsDocsTest {

    @Test
    void operatorGuideListsEveryMetricAndNoOther() throws IOException {
        List<SourceFactory.Gauge> gauges = new ArrayList<>();
        ServiceLoader.load(SourceFactory.class).forEach(f -> gauges.addAll(f.gauges()));
        assertThat(gauges).as("the CDC slot gauge, at least").isNotEmpty();
        RelayMetrics metrics = new RelayMetrics("r", "cdc", gauges, () -> true, () -> true);
        metrics.published("t", Instant.now());
        metrics.batchPublished(1, Duration.ofMillis(3));
        metrics.publishFailed(UUID.randomUUID(), "x");
        metrics.deadLettered(UUID.randomUUID(), "x");
        metrics.outage("kafka", new RuntimeException());
        Set<String> exposed = new TreeSet<>();
        Matcher type = Pattern.compile("(?m)^# TYPE (\\S+) (\\S+)$").matcher(metrics.scrape());
        while (type.find()) {
            if (type.group(1).startsWith("outbox_relay_")) { // jvm_*, process_*, kafka_*: Micrometer's binders
                exposed.add(type.group(1)); // the 0.0.4 text format names counters with _total already
            }
        }
        String guide = Files.readString(Path.of("..", "docs", "operator-guide.md"), StandardCharsets.UTF_8);
        String table = guide.substring(guide.indexOf("<!-- METRICS TABLE"), guide.indexOf("<!-- END METRICS TABLE"));
        Set<String> documented = new TreeSet<>();
        Matcher name = Pattern.compile("(?m)^\\| `(outbox_relay_[a-z_]+)`").matcher(table);
        while (name.find()) {
            documented.add(name.group(1));
        }
        assertThat(documented).as("docs/operator-guide.md metrics table vs. /metrics").isEqualTo(exposed);
        assertThat(metrics.scrape()).as("the platform metrics beside the relay's own")
                .contains("jvm_memory_used_bytes", "jvm_gc_live_data_size_bytes", "jvm_threads_live_threads",
                        "process_cpu_usage", "process_uptime_seconds", "outbox_relay_build_info{");
        metrics.close();
    }
}
