package dev.outboxrelay.testkit;

import java.util.LinkedHashMap;
import java.util.Map;

/** The broker settings {@link TestKafka} starts with: a single combined node that behaves like production. */
final class BrokerDefaults {

    private BrokerDefaults() {
    }

    /** A fresh, mutable map of the defaults; a caller's overrides go on top. */
    static Map<String, String> singleNode() {
        Map<String, String> config = new LinkedHashMap<>();
        config.put("auto.create.topics.enable", "true");
        config.put("num.partitions", "1");
        config.put("default.replication.factor", "1");
        config.put("min.insync.replicas", "1");
        // Internal topics default to replication factor 3, which one broker can never satisfy.
        config.put("offsets.topic.replication.factor", "1");
        config.put("offsets.topic.num.partitions", "1");
        config.put("transaction.state.log.replication.factor", "1");
        config.put("transaction.state.log.min.isr", "1");
        config.put("transaction.state.log.num.partitions", "1");
        config.put("share.coordinator.state.topic.replication.factor", "1");
        config.put("share.coordinator.state.topic.min.isr", "1");
        // No point waiting for more group members that will never come.
        config.put("group.initial.rebalance.delay.ms", "0");
        // restart() is refused (DUPLICATE_BROKER_REGISTRATION) until the old incarnation's session expires,
        // 9 s by default. Shorter, but still 8 heartbeats long so that a loaded CI machine does not fence it.
        config.put("broker.heartbeat.interval.ms", "500");
        config.put("broker.session.timeout.ms", "4000");
        // Behave like a production broker: the test kit enables unstable versions by default.
        config.put("unstable.api.versions.enable", "false");
        config.put("unstable.feature.versions.enable", "false");
        return config;
    }
}
