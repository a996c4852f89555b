package dev.outboxrelay.cdc;

import dev.outboxrelay.core.acknowledge.Acknowledger.OnPublish;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.InstanceOptions;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.MemoryBudget;
import dev.outboxrelay.core.config.Password;
import dev.outboxrelay.core.delivery.OnPoison;
import dev.outboxrelay.core.db.JdbcUrls;
import dev.outboxrelay.core.publish.Secrets;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import java.util.regex.Pattern;

/**
 * Immutable settings of the CDC source. Build with {@link #builder(String, String, String)}; every other
 * setting has a default. {@link #toString()} never shows the password.
 */
public final class CdcSettings {

    /** Where the CDC source keeps the WAL position Kafka acknowledged. */
    public enum OffsetStore {
        /** A relay-owned table beside the outbox table ({@code <table>_cdc_offsets}, migration 3). */
        DB,
        /** A local file ({@code --offset-file}); lost with the machine, then the rescan recovers. */
        FILE
    }

    /** Default replication slot name. */
    public static final String DEFAULT_SLOT = "outbox_relay";

    private static final Pattern SLOT = Pattern.compile("[a-z0-9_]{1,63}");

    private final String jdbcUrl;
    private final String user;
    private final Supplier<Optional<Password>> password;
    private final OutboxTable table;
    private final String slotName;
    private final boolean slotFailover;
    private final String publication;
    private final OffsetStore offsetStore;
    private final Path offsetFile;
    private final Duration heartbeatInterval;
    private final OnPublish onPublish;
    private final int maxAttempts;
    private final OnPoison onPoison;
    private final Duration retention;
    private final String deadLetterTopic;
    private final Duration purgeInterval;
    private final Map<String, String> debezium;
    private final String relayName;
    private final long maxInFlightBytes;

    private CdcSettings(Builder b) {
        this.jdbcUrl = b.jdbcUrl;
        this.user = b.user;
        this.password = b.password;
        this.table = b.table;
        this.slotName = b.slotName;
        this.slotFailover = b.slotFailover;
        this.publication = b.publication;
        this.offsetStore = b.offsetStore;
        this.offsetFile = b.offsetFile;
        this.heartbeatInterval = b.heartbeatInterval;
        this.onPublish = b.onPublish;
        this.maxAttempts = b.maxAttempts;
        this.onPoison = b.onPoison;
        this.retention = b.retention;
        this.deadLetterTopic = b.deadLetterTopic;
        this.purgeInterval = b.purgeInterval;
        this.debezium = Collections.unmodifiableMap(new LinkedHashMap<>(b.debezium));
        this.relayName = b.relayName;
        this.maxInFlightBytes = b.maxInFlightBytes;
    }

    /**
     * Starts settings for a database.
     *
     * @param jdbcUrl  {@code jdbc:postgresql://host[:port]/database[?sslmode=…]}
     * @param user     a role with the REPLICATION attribute (see docs/cdc-mode.md)
     * @param password may be {@code null} (trust / .pgpass)
     */
    public static Builder builder(String jdbcUrl, String user, String password) {
        Optional<Password> fixed = Optional.ofNullable(password).map(Password::of);
        return new Builder(jdbcUrl, user, () -> fixed);
    }

    /**
     * The same with a password read again for every new connection and engine start (the relay's
     * {@code --db-password-file}, so a rotated password is picked up at the next reconnect).
     */
    public static Builder builder(String jdbcUrl, String user, Supplier<Optional<Password>> password) {
        return new Builder(jdbcUrl, user, password);
    }

    public String jdbcUrl() {
        return jdbcUrl;
    }

    public String user() {
        return user;
    }

    /** The database password, read now; never log it. */
    public Optional<Password> password() {
        return password.get();
    }

    /** Where the password is read from, for every new connection. */
    Supplier<Optional<Password>> passwordSource() {
        return password;
    }

    public OutboxTable table() {
        return table;
    }

    public String slotName() {
        return slotName;
    }

    /** Whether the slot must be a failover slot (PostgreSQL 17+), synchronized to standbys. */
    public boolean slotFailover() {
        return slotFailover;
    }

    public String publication() {
        return publication;
    }

    public OffsetStore offsetStore() {
        return offsetStore;
    }

    /** The offsets file; set when {@link #offsetStore()} is {@link OffsetStore#FILE}. */
    public Path offsetFile() {
        return offsetFile;
    }

    public Duration heartbeatInterval() {
        return heartbeatInterval;
    }

    public OnPublish onPublish() {
        return onPublish;
    }

    public int maxAttempts() {
        return maxAttempts;
    }

    /** Whether a dead letter holds back the later events of its key; default from {@link KafkaOptions#ON_POISON}. */
    public OnPoison onPoison() {
        return onPoison;
    }

    /** Where copies of dead-lettered events also go, if anywhere ({@link KafkaOptions#DEAD_LETTER_TOPIC}). */
    public Optional<String> deadLetterTopic() {
        return Optional.ofNullable(deadLetterTopic);
    }

    /** With mark: how long sent rows are kept before they are purged; default {@link KafkaOptions#RETENTION}. */
    public Duration retention() {
        return retention;
    }

    /** How often the purge of sent rows runs; default {@link KafkaOptions#PURGE_INTERVAL}. */
    public Duration purgeInterval() {
        return purgeInterval;
    }

    /** Debezium connector/engine properties that override the relay's ({@code --debezium.<property>}). */
    public Map<String, String> debezium() {
        return debezium;
    }

    public String relayName() {
        return relayName;
    }

    /**
     * Estimated bytes of events held at once: half in Debezium's queue ({@code max.queue.size.in.bytes}), half in
     * the delivery pipeline; default from {@link KafkaOptions#MAX_IN_FLIGHT_BYTES} for this JVM.
     */
    public long maxInFlightBytes() {
        return maxInFlightBytes;
    }

    @Override
    public String toString() {
        Map<String, String> dbz = new LinkedHashMap<>();
        debezium.forEach((k, v) -> dbz.put(k, Secrets.looksSecret(k) ? Secrets.MASK : v));
        return "CdcSettings[jdbcUrl=" + JdbcUrls.masked(jdbcUrl)
                + ", user=" + user + ", password=" + Secrets.MASK
                + ", table=" + table + ", slot=" + slotName + (slotFailover ? " (failover)" : "")
                + ", publication=" + publication
                + ", offsetStore=" + offsetStore + (offsetFile == null ? "" : ", offsetFile=" + offsetFile)
                + ", heartbeatInterval=" + heartbeatInterval + ", onPublish=" + onPublish
                + ", maxAttempts=" + maxAttempts + ", onPoison=" + onPoison
                + (deadLetterTopic == null ? "" : ", deadLetterTopic=" + deadLetterTopic)
                + ", retention=" + retention
                + ", purgeInterval=" + purgeInterval + ", relayName=" + relayName
                + ", maxInFlightBytes=" + MemoryBudget.format(maxInFlightBytes) + ", debezium=" + dbz + "]";
    }

    /** Mutable builder; {@link #build()} validates. */
    public static final class Builder {
        private final String jdbcUrl;
        private final String user;
        private final Supplier<Optional<Password>> password;
        // Defaults come from the option declarations, so each is written down once.
        private OutboxTable table = DatabaseOptions.TABLE.parsedDefault();
        private String slotName = CdcOptions.SLOT_NAME.parsedDefault();
        private boolean slotFailover = CdcOptions.SLOT_FAILOVER.parsedDefault();
        private String publication = DatabaseOptions.PUBLICATION.parsedDefault();
        private OffsetStore offsetStore = CdcOptions.OFFSET_STORE.parsedDefault();
        private Path offsetFile;
        private Duration heartbeatInterval = CdcOptions.HEARTBEAT_INTERVAL.parsedDefault();
        private OnPublish onPublish = KafkaOptions.ON_PUBLISH.parsedDefault();
        private int maxAttempts = KafkaOptions.MAX_ATTEMPTS.parsedDefault();
        private OnPoison onPoison = KafkaOptions.ON_POISON.parsedDefault();
        private Duration retention = KafkaOptions.RETENTION.parsedDefault();
        private String deadLetterTopic;
        private Duration purgeInterval = KafkaOptions.PURGE_INTERVAL.parsedDefault();
        private final Map<String, String> debezium = new LinkedHashMap<>();
        private String relayName = InstanceOptions.RELAY_NAME.parsedDefault();
        private long maxInFlightBytes = KafkaOptions.defaultInFlightBytes();

        private Builder(String jdbcUrl, String user, Supplier<Optional<Password>> password) {
            this.jdbcUrl = Objects.requireNonNull(jdbcUrl, "jdbcUrl");
            this.user = Objects.requireNonNull(user, "user");
            this.password = Objects.requireNonNull(password, "password");
        }

        public Builder table(OutboxTable value) {
            this.table = Objects.requireNonNull(value, "table");
            return this;
        }

        public Builder slotName(String value) {
            this.slotName = Objects.requireNonNull(value, "slotName");
            return this;
        }

        public Builder slotFailover(boolean value) {
            this.slotFailover = value;
            return this;
        }

        public Builder publication(String value) {
            this.publication = Objects.requireNonNull(value, "publication");
            return this;
        }

        public Builder offsetStore(OffsetStore value) {
            this.offsetStore = Objects.requireNonNull(value, "offsetStore");
            return this;
        }

        public Builder offsetFile(Path value) {
            this.offsetFile = value;
            return this;
        }

        public Builder heartbeatInterval(Duration value) {
            this.heartbeatInterval = Objects.requireNonNull(value, "heartbeatInterval");
            return this;
        }

        public Builder onPublish(OnPublish value) {
            this.onPublish = Objects.requireNonNull(value, "onPublish");
            return this;
        }

        /** May be null: no dead-letter topic. */
        public Builder deadLetterTopic(String value) {
            this.deadLetterTopic = value;
            return this;
        }

        public Builder retention(Duration value) {
            this.retention = Objects.requireNonNull(value, "retention");
            return this;
        }

        public Builder purgeInterval(Duration value) {
            this.purgeInterval = Objects.requireNonNull(value, "purgeInterval");
            return this;
        }

        public Builder onPoison(OnPoison value) {
            this.onPoison = Objects.requireNonNull(value, "onPoison");
            return this;
        }

        public Builder maxAttempts(int value) {
            this.maxAttempts = value;
            return this;
        }

        /** Adds Debezium properties; they win over the relay's own settings except the delivery-critical ones. */
        public Builder debezium(Map<String, String> values) {
            this.debezium.putAll(values);
            return this;
        }

        public Builder relayName(String value) {
            this.relayName = Objects.requireNonNull(value, "relayName");
            return this;
        }

        public Builder maxInFlightBytes(long value) {
            if (value < 1) {
                throw new IllegalArgumentException("max in-flight bytes must be positive, was " + value);
            }
            this.maxInFlightBytes = value;
            return this;
        }

        /** @throws IllegalArgumentException naming the offending setting */
        public CdcSettings build() {
            if (!jdbcUrl.startsWith("jdbc:postgresql:")) {
                throw new IllegalArgumentException("database URL must start with jdbc:postgresql:");
            }
            if (!SLOT.matcher(slotName).matches()) {
                throw new IllegalArgumentException("'" + slotName + "' is not a valid replication slot name:"
                        + " expected 1 to 63 lower-case letters, digits and underscores");
            }
            OutboxSchema.plan(table, publication); // validates the publication name with the schema's message
            if (InstanceOptions.RELAY_NAME.validator().problem(relayName) != null) { // the option's own rule
                throw new IllegalArgumentException("'" + relayName + "' is not a valid relay name:"
                        + " expected 1 to 100 letters, digits, '.', '_' or '-'");
            }
            if (offsetStore == OffsetStore.FILE && offsetFile == null) {
                throw new IllegalArgumentException("--offset-store file needs --offset-file");
            }
            if (heartbeatInterval.isNegative() || heartbeatInterval.isZero()) {
                throw new IllegalArgumentException("heartbeat interval must be positive, was " + heartbeatInterval);
            }
            if (maxAttempts < 1) {
                throw new IllegalArgumentException("max attempts must be at least 1, was " + maxAttempts);
            }
            return new CdcSettings(this);
        }
    }
}
