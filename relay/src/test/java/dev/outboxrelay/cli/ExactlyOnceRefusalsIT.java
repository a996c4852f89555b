package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.core.publish.ExactlyOnce;
import dev.outboxrelay.core.publish.ExactlyOnceCheck;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.testkit.TestKafka;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

/**
 * {@code run --delivery exactly-once} on a Kafka that cannot hold it is refused with one line, before PostgreSQL is
 * contacted (the database URL points at nothing): a transaction log that does not fit the brokers, a state topic
 * that retention could empty.
 */
class ExactlyOnceRefusalsIT {

    private static final String NOWHERE = "jdbc:postgresql://127.0.0.1:1/app";

    private static CliRun run(String bootstrap, String... extra) {
        String[] base = {"run", "--mode", "poll", "--db-url", NOWHERE, "--db-user", "relay", "--kafka-bootstrap",
            bootstrap, "--delivery", "exactly-once", "--relay-name", "refusals", "--http-port", "0"};
        String[] args = new String[base.length + extra.length];
        System.arraycopy(base, 0, args, 0, base.length);
        System.arraycopy(extra, 0, args, base.length, extra.length);
        return CliRun.of(Map.of("RELAY_DB_PASSWORD", "secret"), args);
    }

    @Test
    void aTransactionLogThatNeedsMoreBrokersThanTheClusterHasIsRefused() {
        try (TestKafka kafka = TestKafka.start(Map.of("transaction.state.log.replication.factor", "3"))) {
            CliRun r = run(kafka.bootstrapServers());
            assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
            assertThat(r.err()).isEqualTo("error: Kafka cannot hold transactions:"
                    + " transaction.state.log.replication.factor=3 but the cluster has 1 broker(s); lower it on the"
                    + " brokers, or run with --delivery at-least-once\n");
        }
    }

    @Test
    void aStateTopicWithRetentionIsRefusedAndAMissingOneIsCreatedCompacted() throws Exception {
        TestKafka kafka = TestKafka.shared();
        kafka.createTopic("eos-state-with-retention", 1, Map.of("cleanup.policy", "delete"));
        CliRun r = run(kafka.bootstrapServers(), "--state-topic", "eos-state-with-retention");
        assertThat(r.exitCode()).as(r.toString()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("error: --state-topic eos-state-with-retention has cleanup.policy=delete: it"
                + " must be compact only, or retention could delete the position the relay restarts from\n");

        // A missing state topic is created, compacted, by the same check (here without starting a relay).
        ExactlyOnceCheck.Result created = ExactlyOnceCheck.check(ProducerSettings.of(kafka.bootstrapServers(),
                Map.of()).exactlyOnce(ExactlyOnce.of("refusals", "public.outbox", "eos-state-created")),
                Duration.ofSeconds(30));
        assertThat(created).isEqualTo(new ExactlyOnceCheck.Ready(1, true));
        ConfigResource topic = new ConfigResource(ConfigResource.Type.TOPIC, "eos-state-created");
        assertThat(kafka.admin().describeConfigs(List.of(topic)).all().get().get(topic).get("cleanup.policy").value())
                .isEqualTo("compact");
    }
}
