package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.Pacing;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * One bad key never holds back the stream, checked on the relay jar as shipped, in both modes, on a broker that
 * does not create topics: 20 keys written at 1,000 events/s while one key's events go to a topic that does not
 * exist yet (created half way), one key has an event routed to an invalid topic name, and one key an event over
 * the producer's {@code max.request.size}. Every other key's events arrive complete and in order; the missing
 * topic's events wait with no attempt counted and follow once it exists; the two bad events are dead-lettered with
 * their reasons ({@code dead-letters list}), their keys' later events wait ({@code --on-poison block}) and arrive
 * in order after {@code dead-letters discard}, the relay running throughout.
 *
 * <p>The good keys' end-to-end latency is written to {@code target/isolation-<mode>.md}, not asserted: numbers come
 * from the benchmark run of this class, {@code -Disolation.seconds=60} (bench/results).
 */
class FailureIsolationIT {

    private static final int SECONDS = Integer.getInteger("isolation.seconds", 10);
    /** How long the broker is stopped after the measured phase (the acceptance run: 20 s). */
    private static final int OUTAGE_SECONDS = Integer.getInteger("isolation.outage.seconds", 3);
    private static final int RATE = 1000;
    private static final int KEYS = 20;
    private static final String MISSING = "k-missing";
    private static final String INVALID = "k-invalid";
    private static final String BIG = "k-big";
    /** The first seconds of writing are the relay's warm-up (JIT, metadata, first batches): not in the figures. */
    private static final long WARM_UP_MILLIS = 2000;
    /** The per-key event number that is the invalid or oversized one: a quarter into the run, after warm-up. */
    private static final int BAD_AT = SECONDS * RATE / KEYS / 4;

    private PublishingRelay started;
    private TestDatabase database;
    private TestKafka kafka;
    private RelayProcess relay;
    private String prefix;
    private final Map<String, List<Integer>> received = new ConcurrentHashMap<>();
    /** Good keys' first arrivals: {write time (epoch ms), latency (ms), event number}. */
    private final List<long[]> latencies = new CopyOnWriteArrayList<>();
    private volatile long writeStartMillis;
    /** First arrival (nanoTime) of each event of the missing topic's key, by its number. */
    private final Map<Integer, Long> missingArrivals = new ConcurrentHashMap<>();
    private volatile long missingCreatedNanos;
    private volatile int missingWrittenBefore;
    private volatile boolean reading = true;

    @BeforeEach
    void setUp() {
        kafka = TestKafka.start(Map.of("auto.create.topics.enable", "false"));
    }

    @AfterEach
    void tearDown() throws Exception {
        reading = false;
        if (started != null) {
            started.close();
        }
        kafka.close();
    }

    @ParameterizedTest(name = "--mode {0}")
    @ValueSource(strings = {"poll", "cdc"})
    void oneBadKeyHoldsBackOnlyItself(String mode) throws Exception {
        prefix = "iso-" + mode;
        kafka.createTopic(prefix + ".Order", 4);
        started = PublishingRelay.of("isolation-" + mode, mode).kafka(kafka).args("--topic-template",
                prefix + ".${aggregateType}", "--max-attempts", "3",
                "--verbose").start(); // per-batch DEBUG lines: what a failure here needs
        database = started.database;
        relay = started.relay;
        Thread reader = new Thread(this::read, "isolation-reader");
        reader.start();

        int perKey = write();
        awaitKeys(perKey);
        assertThat(database.queryLong("SELECT count(*) FROM outbox WHERE aggregate_id = '" + MISSING
                + "' AND attempts > 0")).as("the missing topic is not the rows' fault").isZero();

        int outagePerKey = brokerOutage();

        CliRun list = cli("dead-letters", "list");
        assertThat(list.out()).contains(INVALID, BIG, "2 dead letter(s)")
                .contains("more than the producer's max.request.size (1048576 bytes): Kafka refuses it every time")
                .contains("gives an illegal Kafka topic name");
        // (Duplicates are the reader's own: its group rebalances when the missing topic appears.)
        assertThat(firstArrivals(INVALID)).as("later events wait behind the dead letter").hasSize(BAD_AT);
        assertThat(firstArrivals(BIG)).hasSize(BAD_AT);
        CliRun discard = cli("dead-letters", "discard", "--all", "--operator", "isolation-it");
        assertThat(discard.out()).startsWith("discarded 2 dead letter(s)");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(firstArrivals(INVALID)).hasSize(perKey + outagePerKey - 1);
            assertThat(firstArrivals(BIG)).hasSize(perKey + outagePerKey - 1);
        });
        for (String key : received.keySet()) {
            List<Integer> order = firstArrivals(key);
            List<Integer> sorted = new ArrayList<>(order);
            sorted.sort(null);
            assertThat(order).as("first arrivals of %s in order", key).isEqualTo(sorted);
        }
        // Arrived is not yet marked: the rows of the last batches are marked a moment after the reader saw them.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(database.queryLong(
                "SELECT count(*) FROM outbox WHERE sent_at IS NULL AND discarded_at IS NULL"))
                .as(() -> "unsent rows by key: " + database.queryString("SELECT string_agg(format('%s: %s row(s),"
                        + " seq %s-%s, attempts %s, retry_at %s, dead %s, error %s', aggregate_id, n, lo, hi, a, r, d,"
                        + " e), '; ') FROM (SELECT aggregate_id, count(*) n, min(seq) lo, max(seq) hi, max(attempts) a,"
                        + " max(retry_at) r, count(dead_lettered_at) d, max(last_error) || ' ids ' || string_agg(id::text, ',') e FROM outbox WHERE sent_at"
                        + " IS NULL AND discarded_at IS NULL GROUP BY aggregate_id) t"))
                .isZero());
        // The missing topic was created half way through writing: its backlog followed by itself.
        long backlogFollowed = 0;
        for (int n = 0; n < missingWrittenBefore; n++) {
            backlogFollowed = Math.max(backlogFollowed, missingArrivals.get(n) - missingCreatedNanos);
        }
        assertThat(Duration.ofNanos(backlogFollowed)).as("the waiting events follow the topic's creation")
                .isLessThan(Duration.ofSeconds(20));
        report(mode, Duration.ofNanos(backlogFollowed));
        assertThat(relay.terminate(Duration.ofSeconds(60))).isZero();
    }

    /** Writes for {@link #SECONDS} at {@link #RATE}; creates the missing topic half way. Returns events per key. */
    private int write() throws Exception {
        int total = SECONDS * RATE;
        int perKey = total / KEYS;
        String blob = "x".repeat(1_200_000); // over the producer's default max.request.size (1 MiB)
        long start = System.nanoTime();
        writeStartMillis = System.currentTimeMillis();
        boolean created = false;
        try (Connection c = database.connect();
             PreparedStatement ps = c.prepareStatement("INSERT INTO outbox (id, aggregate_type, aggregate_id,"
                     + " event_type, payload) VALUES (?, ?, ?, 'Happened', ?::jsonb)")) {
            c.setAutoCommit(false);
            for (int n = 0; n < perKey; n++) {
                for (int k = 0; k < KEYS; k++) {
                    String key = key(k);
                    String type = key.equals(MISSING) ? "Missing" : key.equals(INVALID) && n == BAD_AT ? "Bad Name"
                            : "Order";
                    String extra = key.equals(BIG) && n == BAD_AT ? ", \"blob\": \"" + blob + "\"" : "";
                    ps.setObject(1, UUID.randomUUID());
                    ps.setString(2, type);
                    ps.setString(3, key);
                    ps.setString(4, "{\"n\": " + n + ", \"t\": " + System.currentTimeMillis() + extra + "}");
                    ps.addBatch();
                }
                ps.executeBatch();
                c.commit();
                if (!created && System.nanoTime() - start > TimeUnit.SECONDS.toNanos(SECONDS) / 2) {
                    missingWrittenBefore = n + 1;
                    kafka.createTopic(prefix + ".Missing", 1);
                    missingCreatedNanos = System.nanoTime();
                    created = true;
                }
                // One round of all keys every KEYS/RATE seconds: 20 events per 20 ms is 1,000 events/s.
                long due = start + (n + 1) * TimeUnit.SECONDS.toNanos(1) * KEYS / RATE;
                Pacing.pause(Duration.ofNanos(due - System.nanoTime()));
            }
        }
        return perKey;
    }

    /**
     * Stops the broker for {@link #OUTAGE_SECONDS} while every key keeps writing (10 events/s each), then starts
     * it again: everything arrives, no row is charged an attempt or dead-lettered for it. Returns the events
     * written per key.
     */
    private int brokerOutage() throws Exception {
        long deadLettered = database.queryLong("SELECT count(*) FROM outbox WHERE dead_lettered_at IS NOT NULL");
        long charged = database.queryLong("SELECT count(*) FROM outbox WHERE attempts > 0");
        kafka.stop();
        int rounds = OUTAGE_SECONDS * 10;
        try (Connection c = database.connect();
             PreparedStatement ps = c.prepareStatement("INSERT INTO outbox (id, aggregate_type, aggregate_id,"
                     + " event_type, payload) VALUES (?, ?, ?, 'Happened', ?::jsonb)")) {
            int base = SECONDS * RATE / KEYS;
            for (int n = 0; n < rounds; n++) {
                for (int k = 0; k < KEYS; k++) {
                    String key = key(k);
                    ps.setObject(1, UUID.randomUUID());
                    ps.setString(2, key.equals(MISSING) ? "Missing" : "Order");
                    ps.setString(3, key);
                    ps.setString(4, "{\"n\": " + (base + n) + ", \"t\": " + System.currentTimeMillis() + "}");
                    ps.addBatch();
                }
                ps.executeBatch();
                Pacing.pause(100); // 10 events/s per key while the broker is gone
            }
        } finally {
            kafka.restart();
        }
        int perKey = SECONDS * RATE / KEYS + rounds;
        await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> {
            for (int k = 0; k < KEYS; k++) {
                String key = key(k);
                int expected = key.equals(INVALID) || key.equals(BIG) ? BAD_AT : perKey;
                assertThat(firstArrivals(key)).as("events of %s after the outage", key).hasSize(expected);
            }
        });
        assertThat(database.queryLong("SELECT count(*) FROM outbox WHERE dead_lettered_at IS NOT NULL"))
                .as("the broker outage dead-letters nothing").isEqualTo(deadLettered);
        assertThat(database.queryLong("SELECT count(*) FROM outbox WHERE attempts > 0"))
                .as("and charges no attempt").isEqualTo(charged);
        return rounds;
    }

    private static String key(int k) {
        return switch (k) {
            case 0 -> MISSING;
            case 1 -> INVALID;
            case 2 -> BIG;
            default -> "k-" + k;
        };
    }

    private void awaitKeys(int perKey) {
        await().atMost(Duration.ofSeconds(120)).untilAsserted(() -> {
            for (int k = 0; k < KEYS; k++) {
                String key = key(k);
                int expected = key.equals(INVALID) || key.equals(BIG) ? BAD_AT : perKey;
                assertThat(firstArrivals(key)).as("events of %s", key).hasSize(expected);
            }
        });
    }

    private List<Integer> firstArrivals(String key) {
        List<Integer> all = received.getOrDefault(key, List.of());
        List<Integer> first = new ArrayList<>();
        Set<Integer> seen = new java.util.HashSet<>();
        for (Integer n : all) {
            if (seen.add(n)) {
                first.add(n);
            }
        }
        return first;
    }

    private void read() {
        Map<String, Object> config = new java.util.HashMap<>(kafka.clientProperties());
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers());
        config.put(ConsumerConfig.GROUP_ID_CONFIG, "isolation-" + UUID.randomUUID());
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
        config.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, 500);
        config.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, 20);
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class);
        Pattern number = Pattern.compile("\"n\": ?(\\d+).*\"t\": ?(\\d+)");
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(config)) {
            consumer.subscribe(Pattern.compile(Pattern.quote(prefix) + "\\..*"));
            while (reading) {
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(50))) {
                    long now = System.currentTimeMillis();
                    long nanos = System.nanoTime();
                    java.util.regex.Matcher m = number.matcher(r.value());
                    if (!m.find()) {
                        continue;
                    }
                    int n = Integer.parseInt(m.group(1));
                    List<Integer> list = received.computeIfAbsent(r.key(), k -> new CopyOnWriteArrayList<>());
                    boolean first = !list.contains(n);
                    list.add(n);
                    if (first && r.key().equals(MISSING)) {
                        missingArrivals.put(n, nanos);
                    } else if (first && !r.key().equals(INVALID) && !r.key().equals(BIG)) {
                        long written = Long.parseLong(m.group(2));
                        latencies.add(new long[] {written, now - written, n});
                    }
                }
            }
        }
    }

    private CliRun cli(String... args) {
        List<String> all = new ArrayList<>(Arrays.asList(args));
        all.addAll(List.of("--db-url", database.jdbcUrl(), "--db-user", database.relayUser()));
        return CliRun.of(Map.of("RELAY_DB_PASSWORD", database.relayPassword()), all.toArray(String[]::new));
    }

    private void report(String mode, Duration backlogFollowed) throws Exception {
        // The measured phase only: not the events written while the broker was stopped afterwards.
        int measured = SECONDS * RATE / KEYS;
        long[] sorted = latencies.stream().filter(l -> l[2] < measured && l[0] >= writeStartMillis + WARM_UP_MILLIS)
                .mapToLong(l -> l[1]).sorted().toArray();
        long[] all = latencies.stream().filter(l -> l[2] < measured).mapToLong(l -> l[1]).sorted().toArray();
        String line = String.format("| %s | %d s | %d | %d | %d | %d | %d | %d | %.1f s |", mode, SECONDS,
                sorted.length, pct(sorted, 0.50), pct(sorted, 0.99), pct(sorted, 0.999), sorted[sorted.length - 1],
                pct(all, 0.99), backlogFollowed.toMillis() / 1000.0);
        System.out.println("Failure isolation: mode, duration, good events after warm-up, their end-to-end latency"
                + " p50, p99, p99.9, max (ms), p99 with warm-up, missing topic's backlog after creation\n" + line);
        Files.writeString(Path.of("target", "isolation-" + mode + ".md"), line + "\n", StandardCharsets.UTF_8);
    }

    private static long pct(long[] sorted, double q) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(q * sorted.length) - 1)];
    }
}
