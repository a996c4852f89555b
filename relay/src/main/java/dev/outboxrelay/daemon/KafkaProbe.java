package dev.outboxrelay.daemon;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import dev.outboxrelay.core.publish.ClientProperties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * Asks the cluster for its brokers with the producer's connection settings (bootstrap, SASL, TLS). An idle
 * relay's producer does not notice a Kafka outage until it sends, so readiness needs its own question.
 */
final class KafkaProbe implements AutoCloseable {

    private final Admin admin;
    private final Duration timeout;

    KafkaProbe(Map<String, Object> producerProperties, Duration timeout) {
        Map<String, Object> props = ClientProperties.admin(producerProperties, "outbox-relay-probe");
        this.admin = Admin.create(props);
        this.timeout = timeout;
    }

    /** Null when a broker answered within the timeout, otherwise why not. */
    String problem() {
        try {
            int brokers = admin.describeCluster(new DescribeClusterOptions().timeoutMs((int) timeout.toMillis()))
                    .nodes().get(timeout.toMillis() + 500, TimeUnit.MILLISECONDS).size();
            // A cluster answering with no brokers (one shutting down) is as unusable as none answering.
            return brokers > 0 ? null : "unreachable (no brokers)";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        } catch (Exception e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            return "unreachable (" + cause.getClass().getSimpleName() + ")";
        }
    }

    @Override
    public void close() {
        admin.close(Duration.ofSeconds(2));
    }
}
