package dev.outboxrelay.daemon;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.core.SourceInspector;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.schema.OutboxTable;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ProbesReadinessTest {

    @Test
    void readinessSaysWhatIsWrongWithoutConnectionDetails() throws Exception {
        int closedPort;
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            closedPort = socket.getLocalPort();
        }
        ConnectionFactory unreachable = ConnectionFactory.jdbc("jdbc:postgresql://127.0.0.1:" + closedPort + "/app",
                "relay", java.util.Optional::empty);
        RelayMetrics metrics = new RelayMetrics("r", "poll", List.of(), () -> false, () -> false);
        try (Probes probes = new Probes(unreachable, OutboxTable.DEFAULT, SourceInspector.none(),
                new KafkaProbe(Map.of("bootstrap.servers", "127.0.0.1:1"), Duration.ofSeconds(1)), metrics,
                Duration.ofMillis(200))) {
            probes.start();
            await().atMost(Duration.ofSeconds(20)).until(() -> probes.databaseProblem() != null
                    && !probes.databaseProblem().startsWith("not checked"));
            assertThat(probes.databaseProblem()).isEqualTo("unreachable");
        } finally {
            metrics.close();
        }
    }
}
