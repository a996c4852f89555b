package dev.outboxrelay.testkit;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;

import kafka.server.BrokerServer;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.test.JaasUtils;
import org.apache.kafka.common.test.KafkaClusterTestKit;
import org.apache.kafka.common.utils.Exit;
import org.apache.kafka.common.test.TestKitNodes;
import org.apache.kafka.metadata.bootstrap.BootstrapMetadata;
import org.apache.kafka.server.common.Feature;
import org.apache.kafka.server.common.MetadataVersion;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real, in-process Kafka broker for tests, demos and benchmarks: Kafka's own {@link KafkaClusterTestKit} with
 * one node in combined KRaft mode (broker and controller in one server), booted at the latest production
 * metadata version with production feature levels.
 *
 * <p>Broker defaults suit a single node: replication factors and min ISR of the internal topics are 1, the
 * group rebalance delay is 0, and <b>auto topic creation is on</b> (the relay publishes to topics routed from
 * templates). Per-topic configs such as {@code max.message.bytes} (for poison-record tests) go through
 * {@link #createTopic(String, int, Map)}; broker-wide overrides through {@link #start(Map)}.
 *
 * <p><b>Outages.</b> {@link #stop()} shuts the broker down (the controller keeps running) and {@link #restart()}
 * starts the same broker again <em>on the same port</em>, so clients configured with
 * {@link #bootstrapServers()} reconnect by themselves, as they would to a restarted production broker. This
 * works because the test kit pre-binds each listener socket and, when that socket was closed by a shutdown,
 * binds a new one on the same port; the JDK sets SO_REUSEADDR on server sockets, so connections in TIME_WAIT
 * do not block it. A TCP proxy was therefore not needed. Data on the broker survives a restart.
 *
 * <p><b>Logging.</b> The broker logs through SLF4J at INFO, which is a lot: each module's
 * {@code logback-test.xml} (not provided by this jar) should set {@code org.apache.kafka} and {@code kafka} to
 * WARN. The few server classes that use Log4j 2 directly are kept at WARN by the {@code log4j2-test.xml} in
 * this jar.
 *
 * <p><b>Authorization.</b> {@link #startWithAuthorizer(Map)} starts a dedicated broker that authenticates every
 * client with SASL/PLAIN and authorizes it with KRaft's {@code StandardAuthorizer} (no ACL, no access): the admin
 * client and topic readers of this class log in as the super user, a relay as {@link #USER} with the ACLs
 * {@link KafkaAcls} gives it.
 *
 * <p><b>Lifecycle.</b> {@link #shared()} is started once per JVM and stopped by a shutdown hook, which also
 * deletes its temporary directory; dedicated instances from {@link #start()} should be closed (the hook is a
 * fallback). The broker runs non-daemon threads, so a {@code main} that uses this class should close it or
 * call {@link System#exit(int)}. Starting a broker makes Kafka's {@code Exit.halt/exit} throw instead of
 * ending the JVM, so a broker failure fails a test rather than killing the test JVM. After {@code kill -9}
 * the {@code /tmp/outbox-kafka-*} directory is left behind (nothing runs to delete it).
 */
public final class TestKafka implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(TestKafka.class);
    private static final Duration READY_TIMEOUT = Duration.ofSeconds(60);
    private static final Duration EXIT_CLOSE_TIMEOUT = Duration.ofSeconds(15);
    private static TestKafka shared;
    /** The user a relay logs in as on a broker from {@link #startWithAuthorizer}; no access without ACLs. */
    public static final String USER = JaasUtils.KAFKA_PLAIN_USER1;
    /** Its password. */
    public static final String USER_PASSWORD = JaasUtils.KAFKA_PLAIN_USER1_PASSWORD;

    private final KafkaClusterTestKit cluster;
    private final Path baseDir;
    private final String bootstrapServers;
    private final boolean isShared;
    /** Client settings of the super user: empty on a broker without authentication. */
    private final Map<String, Object> superUser;
    private final Thread shutdownHook;
    private Admin admin;
    private boolean running = true;
    private boolean closed;

    private TestKafka(KafkaClusterTestKit cluster, Path baseDir, boolean isShared, boolean sasl) {
        this.cluster = cluster;
        this.baseDir = baseDir;
        this.bootstrapServers = cluster.bootstrapServers();
        this.isShared = isShared;
        this.superUser = sasl ? Map.copyOf(clientSecurity(JaasUtils.KAFKA_PLAIN_ADMIN,
                JaasUtils.KAFKA_PLAIN_ADMIN_PASSWORD)) : Map.of();
        this.shutdownHook = new Thread(this::closeAtExit, "outbox-testkit-kafka-stop");
        Runtime.getRuntime().addShutdownHook(shutdownHook);
    }

    /** The broker shared by everything in this JVM, started on first use. {@link #close()} on it does nothing. */
    public static synchronized TestKafka shared() {
        if (shared == null) {
            shared = boot(Map.of(), true, false);
        }
        return shared;
    }

    /** Starts a dedicated broker with the default configuration; the caller must close it. */
    public static TestKafka start() {
        return start(Map.of());
    }

    /**
     * Starts a dedicated broker; {@code brokerConfig} overrides the defaults (e.g.
     * {@code Map.of("auto.create.topics.enable", "false")}). The caller must close it.
     */
    public static TestKafka start(Map<String, String> brokerConfig) {
        return boot(brokerConfig, false, false);
    }

    /**
     * Starts a dedicated broker with SASL/PLAIN on every listener and the {@code StandardAuthorizer}; clients
     * other than this class's need {@link #clientSecurity} and ACLs. The caller must close it.
     */
    public static TestKafka startWithAuthorizer(Map<String, String> brokerConfig) {
        return boot(brokerConfig, false, true);
    }

    /** Client settings (producer, consumer, admin) to log in as {@code user} with SASL/PLAIN. */
    public static Map<String, String> clientSecurity(String user, String password) {
        return Map.of("security.protocol", "SASL_PLAINTEXT", "sasl.mechanism", "PLAIN", "sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"" + user
                        + "\" password=\"" + password + "\";");
    }

    /** Client settings of this class's own clients: the super user on a broker with an authorizer, else none. */
    public Map<String, Object> clientProperties() {
        return superUser;
    }

    private static TestKafka boot(Map<String, String> overrides, boolean isShared, boolean sasl) {
        long started = System.nanoTime();
        Map<String, String> config = BrokerDefaults.singleNode();
        config.putAll(overrides);

        neverEndTheJvm();
        KafkaClusterTestKit cluster = null;
        Path baseDir = null;
        try {
            // Our own directory: the test kit's default one comes with a shutdown hook that deletes it while
            // the broker may still be running, see closeAtExit().
            baseDir = Files.createTempDirectory("outbox-kafka-");
            TestKitNodes.Builder nodeBuilder = new TestKitNodes.Builder(productionBootstrap())
                    .setBaseDirectory(baseDir)
                    .setCombined(true)
                    .setNumBrokerNodes(1)
                    .setNumControllerNodes(1);
            if (sasl) {
                // The kit then enables PLAIN, the StandardAuthorizer and a JAAS file with its admin and user1;
                // the broker talks to its controller as the super user.
                nodeBuilder.setBrokerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT)
                        .setControllerSecurityProtocol(SecurityProtocol.SASL_PLAINTEXT);
            }
            TestKitNodes nodes = nodeBuilder.build();
            KafkaClusterTestKit.Builder builder = new KafkaClusterTestKit.Builder(nodes);
            config.forEach(builder::setConfigProp);
            cluster = builder.build();
            cluster.format();
            cluster.startup();
            cluster.waitForReadyBrokers();
            TestKafka kafka = new TestKafka(cluster, baseDir, isShared, sasl);
            LOG.info("Kafka broker started on {} in {} ms", kafka.bootstrapServers,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
            return kafka;
        } catch (Exception e) {
            if (cluster != null) {
                closeQuietly(cluster);
            }
            OsCommands.deleteTree(baseDir);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("Could not start the Kafka broker", e);
        }
    }

    /**
     * The broker calls {@code Exit.halt(1)} on some fatal paths (e.g. when its log directory fails). In a
     * shared test JVM that would kill every other test and show up only as "fork exited with code 1", so
     * make such calls log and throw in the calling broker thread instead. Kafka's own tests do the same.
     */
    private static void neverEndTheJvm() {
        Exit.setHaltProcedure((code, message) -> {
            LOG.error("In-process Kafka broker asked to halt the JVM ({}: {}); refusing", code, message);
            throw new IllegalStateException("Kafka broker requested halt(" + code + "): " + message);
        });
        Exit.setExitProcedure((code, message) -> {
            LOG.error("In-process Kafka broker asked to exit the JVM ({}: {}); refusing", code, message);
            throw new IllegalStateException("Kafka broker requested exit(" + code + "): " + message);
        });
    }

    private static BootstrapMetadata productionBootstrap() {
        MetadataVersion version = MetadataVersion.latestProduction();
        Map<String, Short> features = Feature.PRODUCTION_FEATURES.stream()
                .collect(Collectors.toMap(Feature::featureName, f -> f.defaultLevel(version)));
        return BootstrapMetadata.fromVersions(version, features, "outbox-test-kit");
    }

    /** {@code host:port} of the broker; stays the same across {@link #stop()} / {@link #restart()}. */
    public String bootstrapServers() {
        return bootstrapServers;
    }

    /**
     * An admin client for this broker, created on first use and owned by this object: do not close it.
     * It survives {@link #stop()} / {@link #restart()} (it reconnects).
     */
    public synchronized Admin admin() {
        if (admin == null) {
            Map<String, Object> config = new LinkedHashMap<>(superUser);
            config.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
            config.put(AdminClientConfig.CLIENT_ID_CONFIG, "outbox-test-kit-admin");
            admin = Admin.create(config);
        }
        return admin;
    }

    /** Creates a topic with replication factor 1 and waits until every partition has a leader that hosts it. */
    public void createTopic(String name, int partitions) {
        createTopic(name, partitions, Map.of());
    }

    /**
     * Creates a topic with replication factor 1 and the given topic configs (e.g.
     * {@code Map.of("max.message.bytes", "2048")}) and waits until every partition has a leader that hosts it.
     */
    public void createTopic(String name, int partitions, Map<String, String> topicConfigs) {
        try {
            admin().createTopics(List.of(new NewTopic(name, partitions, (short) 1).configs(topicConfigs)))
                    .all().get(30, TimeUnit.SECONDS);
            awaitLeaders(Set.of(name), Duration.ofSeconds(30));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while creating topic " + name, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("Could not create topic " + name, e);
        }
    }

    /**
     * Shuts the broker down, like a broker outage: clients see connection refused on
     * {@link #bootstrapServers()} until {@link #restart()}. The controller stays up.
     */
    public synchronized void stop() {
        ensureOpen();
        if (!running) {
            return;
        }
        long started = System.nanoTime();
        broker().shutdown();
        running = false;
        LOG.info("Kafka broker stopped in {} ms", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    /**
     * Starts the broker again on the same address and waits until it is registered, unfenced and leads every
     * partition again, so that a client's next attempt succeeds.
     */
    public synchronized void restart() {
        ensureOpen();
        if (running) {
            return;
        }
        long started = System.nanoTime();
        try {
            broker().startup();
            running = true;
            cluster.waitForReadyBrokers();
            Set<String> topics = admin().listTopics(new ListTopicsOptions().listInternal(true)).names()
                    .get(30, TimeUnit.SECONDS);
            awaitLeaders(topics, READY_TIMEOUT);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted while restarting the broker", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("The broker did not come back", e);
        }
        LOG.info("Kafka broker restarted on {} in {} ms", bootstrapServers,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started));
    }

    /** Whether the broker is up (false between {@link #stop()} and {@link #restart()}). */
    public synchronized boolean isRunning() {
        return running;
    }

    private void awaitLeaders(Set<String> topics, Duration timeout)
            throws InterruptedException, ExecutionException, TimeoutException {
        if (topics.isEmpty()) {
            return;
        }
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try {
                Map<String, TopicDescription> descriptions = admin().describeTopics(topics).allTopicNames()
                        .get(10, TimeUnit.SECONDS);
                if (HostedPartitions.all(admin(), descriptions)) {
                    return;
                }
            } catch (ExecutionException e) {
                // UnknownTopicOrPartition right after creation: metadata has not reached the broker yet.
                if (System.nanoTime() > deadline) {
                    throw e;
                }
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("Partitions of " + topics + " still have no leader after " + timeout);
            }
            Thread.sleep(50);
        }
    }

    private BrokerServer broker() {
        return cluster.brokers().values().iterator().next();
    }

    private void ensureOpen() {
        if (closed) {
            throw new IllegalStateException("This TestKafka is closed");
        }
    }

    /**
     * Shuts a dedicated broker down and deletes its data. Does nothing for {@link #shared()}, which others in
     * this JVM may still use.
     */
    @Override
    public void close() {
        if (isShared) {
            return;
        }
        shutDown();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException alreadyExiting) {
            // the hook is running; shutDown() is idempotent
        }
    }

    private synchronized void shutDown() {
        if (closed) {
            return;
        }
        closed = true;
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        closeQuietly(cluster);
        OsCommands.deleteTree(baseDir);
    }

    /**
     * Shutdown hook: stop the broker before deleting its files. Deleting them under a live broker makes it
     * fail its log directory at the very end of a test run. Bounded, so that a stuck broker cannot keep
     * the JVM from exiting.
     */
    private void closeAtExit() {
        Thread closer = new Thread(this::shutDown, "outbox-testkit-kafka-close");
        closer.setDaemon(true);
        closer.start();
        try {
            closer.join(EXIT_CLOSE_TIMEOUT.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        OsCommands.deleteTree(baseDir);
    }

    private static void closeQuietly(KafkaClusterTestKit cluster) {
        try {
            cluster.close();
        } catch (Exception e) {
            LOG.warn("Error while closing the Kafka cluster", e);
        }
    }

    @Override
    public String toString() {
        return "TestKafka[" + bootstrapServers + (running ? "" : ", stopped") + "]";
    }
}
