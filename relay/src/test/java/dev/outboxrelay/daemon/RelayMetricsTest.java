package dev.outboxrelay.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class RelayMetricsTest {

    @Test
    void topicLabelsAreBoundedWhateverTheDataRoutesTo() {
        RelayMetrics metrics = new RelayMetrics("r", "poll", List.of(), () -> true, () -> true);
        try {
            for (int i = 0; i < RelayMetrics.MAX_TOPIC_LABELS + 50; i++) {
                metrics.published("orders.Type" + i, Instant.now());
                metrics.published("orders.Type" + i, Instant.now());
            }
            List<String> series = metrics.scrape().lines()
                    .filter(l -> l.startsWith("outbox_relay_events_published_total{")).toList();
            assertThat(series).hasSize(RelayMetrics.MAX_TOPIC_LABELS + 1);
            assertThat(series).anySatisfy(l -> assertThat(l).contains("topic=\"_other\"").endsWith(" 100.0"));
        } finally {
            metrics.close();
        }
    }
}
