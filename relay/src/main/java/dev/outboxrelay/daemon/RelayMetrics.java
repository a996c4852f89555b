package dev.outboxrelay.daemon;

import dev.outboxrelay.core.SourceFactory;

import dev.outboxrelay.core.RelayListener;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BooleanSupplier;

/**
 * The relay's metrics, fed by the sources through {@link RelayListener} and by the daemon's periodic probe,
 * exposed in the Prometheus text format. Names follow Prometheus conventions ({@code outbox_relay_} prefix,
 * units in the name, {@code _total} for counters); the operator guide lists them and a test keeps it in sync.
 */
public final class RelayMetrics implements RelayListener {

    /** Distinct {@code topic} label values before further topics are counted as {@value #OTHER_TOPICS}. */
    static final int MAX_TOPIC_LABELS = 200;
    static final String OTHER_TOPICS = "_other";
    private static final double[] BATCH_BUCKETS = {1, 10, 50, 100, 250, 500, 1000, 2500, 5000, 10000};
    private static final Duration[] LATENCY_BUCKETS = {Duration.ofMillis(5), Duration.ofMillis(10),
        Duration.ofMillis(25), Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250),
        Duration.ofMillis(500), Duration.ofSeconds(1), Duration.ofSeconds(2), Duration.ofSeconds(5),
        Duration.ofSeconds(10), Duration.ofSeconds(30), Duration.ofSeconds(60)};
    private static final Duration[] LAG_BUCKETS = {Duration.ofMillis(10), Duration.ofMillis(50),
        Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500), Duration.ofSeconds(1),
        Duration.ofSeconds(5), Duration.ofSeconds(15), Duration.ofSeconds(60), Duration.ofMinutes(5),
        Duration.ofMinutes(15), Duration.ofHours(1)};

    private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
    private final PlatformMetrics platform;
    private final Counter failures;
    private final Counter deadLetters;
    private final Counter producerRebuilds;
    private final Counter resentKeys;
    private final Counter resentEvents;
    private final Counter transactionsCommitted;
    private final Counter transactionsAborted;
    private final Counter fenced;
    private final DistributionSummary batchSize;
    private final Timer publishLatency;
    private final Timer lag;
    /** Per-topic counters, looked up once: a registry lookup by tags per event showed in profiles. */
    private final Map<String, Counter> publishedByTopic = new ConcurrentHashMap<>();
    private volatile Counter otherTopics;
    private volatile double backlog = Double.NaN;
    private volatile double oldestAge = Double.NaN;
    private volatile double deadLetterRows = Double.NaN;
    /** The source's gauges by name, as its inspector last sampled them. */
    private final Map<String, Double> sourceGauges = new ConcurrentHashMap<>();
    private volatile int parkedKeys;

    /**
     * @param relayName value of the {@code relay} tag on every metric
     * @param mode      {@code poll} or {@code cdc}, a label of {@code outbox_relay_build_info}
     * @param gauges    the source's own gauges ({@link SourceFactory#gauges()})
     * @param active    whether this instance publishes now (the leader gauge)
     * @param ready     whether {@code /health/ready} would answer 200
     */
    public RelayMetrics(String relayName, String mode, List<SourceFactory.Gauge> gauges, BooleanSupplier active,
                        BooleanSupplier ready) {
        registry.config().commonTags(Tags.of("relay", relayName));
        platform = new PlatformMetrics(registry, mode);
        failures = Counter.builder("outbox.relay.publish.failures")
                .description("Failed publish attempts (the row waits or is dead-lettered)").register(registry);
        deadLetters = Counter.builder("outbox.relay.dead.letters")
                .description("Rows dead-lettered by this instance").register(registry);
        producerRebuilds = Counter.builder("outbox.relay.producer.rebuilds")
                .description("Kafka producers closed after a failed record (so nothing overtook it) and replaced")
                .register(registry);
        resentKeys = Counter.builder("outbox.relay.resent.for.order.keys")
                .description("Keys whose unacknowledged events were sent again in order after a failed record")
                .register(registry);
        resentEvents = Counter.builder("outbox.relay.resent.for.order.events")
                .description("Unacknowledged events sent again in order after a failed record (duplicates possible)")
                .register(registry);
        transactionsCommitted = Counter.builder("outbox.relay.transactions").tag("outcome", "committed")
                .description("Exactly-once: Kafka transactions ended, by outcome").register(registry);
        transactionsAborted = Counter.builder("outbox.relay.transactions").tag("outcome", "aborted")
                .description("Exactly-once: Kafka transactions ended, by outcome").register(registry);
        fenced = Counter.builder("outbox.relay.fenced")
                .description("Exactly-once: times another instance took this relay's transactional id")
                .register(registry);
        batchSize = DistributionSummary.builder("outbox.relay.batch.size").baseUnit("events")
                .description("Events per acknowledged batch").serviceLevelObjectives(BATCH_BUCKETS)
                .register(registry);
        publishLatency = Timer.builder("outbox.relay.publish.latency")
                .description("Time from handing a batch to the producer until Kafka acknowledged all of it")
                .serviceLevelObjectives(LATENCY_BUCKETS).register(registry);
        lag = Timer.builder("outbox.relay.end.to.end.lag")
                .description("Time from the row's created_at until Kafka acknowledged its record")
                .serviceLevelObjectives(LAG_BUCKETS).register(registry);
        Gauge.builder("outbox.relay.backlog", () -> backlog).baseUnit("rows")
                .description("Unsent, live rows in the outbox table (sampled every --probe-interval)").register(registry);
        Gauge.builder("outbox.relay.oldest.unsent.age", () -> oldestAge).baseUnit("seconds")
                .description("Age of the oldest unsent row, 0 when none (sampled)").register(registry);
        Gauge.builder("outbox.relay.dead.letter", () -> deadLetterRows).baseUnit("rows")
                .description("Dead letters in the table, not discarded (sampled)").register(registry);
        Gauge.builder("outbox.relay.parked.keys", () -> parkedKeys)
                .description("Keys whose events wait in the table while other keys flow (topic unusable, a row"
                        + " waiting for its retry, a dead letter with --on-poison block)").register(registry);
        Gauge.builder("outbox.relay.active", () -> active.getAsBoolean() ? 1 : 0)
                .description("1 while this instance publishes (leader), 0 on standby").register(registry);
        Gauge.builder("outbox.relay.ready", () -> ready.getAsBoolean() ? 1 : 0)
                .description("1 while /health/ready answers 200").register(registry);
        for (SourceFactory.Gauge g : gauges) {
            Gauge.builder(g.name(), () -> sourceGauges.getOrDefault(g.name(), Double.NaN)).baseUnit(g.baseUnit())
                    .description(g.description()).register(registry);
        }
    }

    /** The Prometheus text exposition of every metric. */
    public String scrape() {
        return registry.scrape();
    }

    /** Sets the gauges sampled from the table. */
    void sampled(OutboxStats stats) {
        backlog = stats.backlog();
        oldestAge = stats.oldestUnsentAgeSeconds();
        deadLetterRows = stats.deadLetters();
    }

    /** Sets the source's gauges as its inspector sampled them. */
    void sourceSampled(Map<String, Double> values) {
        sourceGauges.putAll(values);
    }

    @Override
    public void parkedKeys(int keys) {
        parkedKeys = keys;
    }

    @Override
    public void published(String topic, Instant createdAt) {
        Counter c = publishedByTopic.get(topic);
        if (c == null) {
            // Topics may come from the data (${aggregateType}): past MAX_TOPIC_LABELS they share one series, and
            // are not remembered one by one either.
            c = publishedByTopic.size() < MAX_TOPIC_LABELS ? publishedByTopic.computeIfAbsent(topic,
                    t -> registry.counter("outbox.relay.events.published", "topic", t)) : otherTopics();
        }
        c.increment();
        if (createdAt != null) {
            Duration d = Duration.between(createdAt, Instant.now());
            lag.record(d.isNegative() ? Duration.ZERO : d);
        }
    }

    private Counter otherTopics() {
        Counter c = otherTopics;
        if (c == null) {
            c = registry.counter("outbox.relay.events.published", "topic", OTHER_TOPICS);
            otherTopics = c;
        }
        return c;
    }

    @Override
    public void batchPublished(int size, Duration elapsed) {
        batchSize.record(size);
        publishLatency.record(elapsed);
    }

    @Override
    public void publishFailed(UUID id, String reason) {
        failures.increment();
    }

    @Override
    public void deadLettered(UUID id, String reason) {
        deadLetters.increment();
    }

    @Override
    public void producerRebuilt(Throwable cause) {
        producerRebuilds.increment();
    }

    @Override
    public void resentForOrder(int keys, int events) {
        resentKeys.increment(keys);
        resentEvents.increment(events);
    }

    @Override
    public void transactionEnded(boolean committed) {
        (committed ? transactionsCommitted : transactionsAborted).increment();
    }

    @Override
    public void fenced() {
        fenced.increment();
    }

    @Override
    public void outage(String what, Throwable cause) {
        registry.counter("outbox.relay.outages", "what", what).increment();
    }

    /** Releases the registry. */
    void close() {
        platform.close();
        registry.close();
    }
}
