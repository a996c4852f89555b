package dev.outboxrelay.cdc;

import dev.outboxrelay.core.SourceFactory;
import java.lang.management.ManagementFactory;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import javax.management.JMException;
import javax.management.MBeanServer;
import javax.management.ObjectName;

/**
 * Debezium's streaming metrics (its JMX bean {@code debezium.postgres:type=connector-metrics,context=streaming,
 * server=<relay name>}) as the source's gauges: whether the replication connection is up, how far behind the
 * database the stream is, how full the engine's queue is. NaN where no engine of that relay runs in this JVM
 * (e.g. {@code status}, or between engine restarts).
 */
final class EngineStatistics {

    static final SourceFactory.Gauge CONNECTED = new SourceFactory.Gauge("outbox.relay.cdc.connected", null,
            "1 while Debezium's replication connection is up, 0 when not, NaN without a running engine");
    static final SourceFactory.Gauge BEHIND_SOURCE = new SourceFactory.Gauge("outbox.relay.cdc.behind.source",
            "seconds", "Time between the last streamed change's commit and its processing (Debezium)");
    static final SourceFactory.Gauge QUEUE_REMAINING = new SourceFactory.Gauge("outbox.relay.cdc.queue.remaining",
            "events", "Free slots in Debezium's queue between the WAL reader and the relay");
    static final SourceFactory.Gauge QUEUE_CAPACITY = new SourceFactory.Gauge("outbox.relay.cdc.queue.capacity",
            "events", "Size of Debezium's queue (max.queue.size)");

    static final List<SourceFactory.Gauge> GAUGES = List.of(CONNECTED, BEHIND_SOURCE, QUEUE_REMAINING,
            QUEUE_CAPACITY);

    private static final MBeanServer SERVER = ManagementFactory.getPlatformMBeanServer();

    private final String relayName;

    EngineStatistics(String relayName) {
        this.relayName = relayName;
    }

    /** The gauges' values now, by name. */
    Map<String, Double> sample() {
        Map<String, Double> values = new LinkedHashMap<>();
        GAUGES.forEach(g -> values.put(g.name(), Double.NaN));
        ObjectName bean = find();
        if (bean == null) {
            return values;
        }
        try {
            values.put(CONNECTED.name(), Boolean.TRUE.equals(SERVER.getAttribute(bean, "Connected")) ? 1.0 : 0.0);
            long behind = ((Number) SERVER.getAttribute(bean, "MilliSecondsBehindSource")).longValue();
            values.put(BEHIND_SOURCE.name(), behind < 0 ? Double.NaN : behind / 1000.0);
            values.put(QUEUE_REMAINING.name(),
                    ((Number) SERVER.getAttribute(bean, "QueueRemainingCapacity")).doubleValue());
            values.put(QUEUE_CAPACITY.name(), ((Number) SERVER.getAttribute(bean, "QueueTotalCapacity")).doubleValue());
        } catch (JMException | RuntimeException e) {
            // The engine stopped between the query and the read: nothing to report this time.
            GAUGES.forEach(g -> values.put(g.name(), Double.NaN));
        }
        return values;
    }

    private ObjectName find() {
        try {
            Set<ObjectName> names = SERVER.queryNames(
                    new ObjectName("debezium.postgres:type=connector-metrics,context=streaming,*"), null);
            for (ObjectName name : names) {
                String server = name.getKeyProperty("server");
                if (relayName.equals(server) || ObjectName.quote(relayName).equals(server)) {
                    return name;
                }
            }
            return null;
        } catch (JMException e) {
            return null;
        }
    }
}
