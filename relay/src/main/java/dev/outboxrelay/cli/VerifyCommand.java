package dev.outboxrelay.cli;

import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.RelayConfig;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.verify.AuditReport;
import dev.outboxrelay.verify.AuditReports;
import dev.outboxrelay.verify.DeliveryAudit;
import dev.outboxrelay.verify.VerifyOptions;
import java.io.PrintStream;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.consumer.ConsumerConfig;

/**
 * {@code verify}: checks what the relay delivered by comparing the outbox rows still in the table with the
 * topics they route to. Exit 0 when nothing sent is missing and per-key order holds, 1 when something was lost
 * or out of order, {@value #COULD_NOT_CHECK} when it could not check (database or Kafka unreachable, …), so
 * that a script never mistakes "could not look" for "lost".
 */
final class VerifyCommand implements Cli.Command {

    /** Exit code when the check itself failed: nothing is known about delivery. */
    static final int COULD_NOT_CHECK = 3;

    private static final ConfigSpec SPEC = ConfigSpec.of(CliOptions.GENERAL, DatabaseOptions.CONNECTION,
            VerifyOptions.SET);

    @Override
    public String name() {
        return "verify";
    }

    @Override
    public String description() {
        return "Check delivery: sent rows missing from their topic, duplicates, per-key order, unsent rows,"
                + " dead letters (exit 1 when something was lost or out of order, or duplicated read_committed; 3 when it"
                + " could not check).";
    }

    @Override
    public ConfigSpec spec() {
        return SPEC;
    }

    @Override
    public List<String> examples() {
        return List.of("RELAY_DB_PASSWORD=... " + Cli.NAME + " verify --db-url jdbc:postgresql://db:5432/app \\",
                "    --db-user relay --kafka-bootstrap kafka:9092 --since 2h",
                Cli.NAME + " verify --config /etc/outbox-relay/relay.properties --json > report.json",
                Cli.NAME + " verify --config /etc/outbox-relay/relay.properties --isolation read_committed");
    }

    @Override
    public int execute(RelayConfig config, PrintStream out, PrintStream err) throws Exception {
        Map<String, Object> consumer = new HashMap<>();
        // Only how to connect: producer tuning in the same passthrough means nothing to a consumer.
        config.passthrough(VerifyOptions.KAFKA.prefix()).forEach((k, v) -> {
            if (k.startsWith("security.") || k.startsWith("sasl.") || k.startsWith("ssl.")) {
                consumer.put(k, v);
            }
        });
        consumer.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, config.get(KafkaOptions.KAFKA_BOOTSTRAP));
        consumer.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, config.get(VerifyOptions.ISOLATION));
        DeliveryAudit audit = DeliveryAudit.of(ConnectionFactory.fromConfig(config),
                DatabaseOptions.table(config), EventRouter.topicTemplate(config.get(KafkaOptions.TOPIC_TEMPLATE), null,
                        java.util.Set.of(), dev.outboxrelay.core.format.MessageFormat.relay(),
                        DatabaseOptions.layout(config)),
                consumer);
        AuditReport report;
        try {
            report = audit.run(config.get(VerifyOptions.SINCE), line -> err.println("verify: " + line));
        } catch (Exception e) {
            err.println("error: could not check delivery: " + Problems.oneLine(e));
            return COULD_NOT_CHECK;
        }
        if (config.get(VerifyOptions.JSON)) {
            out.println(AuditReports.json(report));
        } else {
            AuditReports.text(report, DatabaseOptions.table(config).toString()).forEach(out::println);
        }
        return report.ok() ? Main.OK : Main.FAILURE;
    }
}
