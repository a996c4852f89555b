package dev.outboxrelay.poll;

import dev.outboxrelay.core.acknowledge.Acknowledger.OnPublish;
import dev.outboxrelay.core.acknowledge.RetentionPurger;
import dev.outboxrelay.core.config.DatabaseOptions;
import dev.outboxrelay.core.config.InstanceOptions;
import dev.outboxrelay.core.config.KafkaOptions;
import dev.outboxrelay.core.config.MemoryBudget;
import dev.outboxrelay.core.delivery.OnPoison;
import dev.outboxrelay.schema.OutboxTable;
import java.time.Duration;
import java.util.Objects;
import java.util.Optional;

/**
 * How the poll source runs: an immutable value built with {@link #builder()}. Every setting has a default
 * that suits a single relay in front of a busy table.
 */
public final class PollSettings {

    private final OutboxTable table;
    private final OnPublish onPublish;
    private final int batchSize;
    private final int pipelineDepth;
    private final Duration pollInterval;
    private final int maxAttempts;
    private final OnPoison onPoison;
    private final Duration retention;
    private final Duration purgeInterval;
    private final int purgeBatchSize;
    private final String deadLetterTopic;
    private final Duration standbyInterval;
    private final Duration maxBackoff;
    private final String relayName;
    private final long maxInFlightBytes;

    private PollSettings(Builder b) {
        this.table = b.table;
        this.onPublish = b.onPublish;
        this.batchSize = b.batchSize;
        this.pipelineDepth = b.pipelineDepth;
        this.pollInterval = b.pollInterval;
        this.maxAttempts = b.maxAttempts;
        this.onPoison = b.onPoison;
        this.retention = b.retention;
        this.purgeInterval = b.purgeInterval;
        this.purgeBatchSize = b.purgeBatchSize;
        this.deadLetterTopic = b.deadLetterTopic;
        this.standbyInterval = b.standbyInterval;
        this.maxBackoff = b.maxBackoff;
        this.relayName = b.relayName;
        this.maxInFlightBytes = b.maxInFlightBytes;
    }

    /** A builder with the defaults. */
    public static Builder builder() {
        return new Builder();
    }

    /** The outbox table polled; default from {@link DatabaseOptions#TABLE}. */
    public OutboxTable table() {
        return table;
    }

    /** Mark rows sent (purged after {@link #retention()}) or delete them once Kafka acknowledged them. */
    public OnPublish onPublish() {
        return onPublish;
    }

    /** Rows claimed per batch; default from {@link PollOptions#BATCH_SIZE}. */
    public int batchSize() {
        return batchSize;
    }

    /** Batches in flight at once, from fetch until marked; default from {@link PollOptions#PIPELINE_DEPTH}. */
    public int pipelineDepth() {
        return pipelineDepth;
    }

    /** Fallback poll period when no insert notification arrives; default from {@link PollOptions#POLL_INTERVAL}. */
    public Duration pollInterval() {
        return pollInterval;
    }

    /** Failed publish attempts after which a row is dead-lettered; default from {@link KafkaOptions#MAX_ATTEMPTS}. */
    public int maxAttempts() {
        return maxAttempts;
    }

    /** Whether a dead letter blocks the rest of its key; default from {@link KafkaOptions#ON_POISON}. */
    public OnPoison onPoison() {
        return onPoison;
    }

    /** How long sent rows are kept before they are purged (mark mode only); default {@link KafkaOptions#RETENTION}. */
    public Duration retention() {
        return retention;
    }

    /** How often the purge of sent rows runs; default from {@link KafkaOptions#PURGE_INTERVAL}. */
    public Duration purgeInterval() {
        return purgeInterval;
    }

    /** Rows deleted per purge statement, so a purge never holds long locks; default 5000. */
    public int purgeBatchSize() {
        return purgeBatchSize;
    }

    /** Topic that dead-lettered events are also sent to, if any. */
    public Optional<String> deadLetterTopic() {
        return Optional.ofNullable(deadLetterTopic);
    }

    /** How often a standby tries to become the active poller; default {@link PollOptions#STANDBY_INTERVAL}. */
    public Duration standbyInterval() {
        return standbyInterval;
    }

    /** Upper bound of the retry backoff after Kafka or database outages; default 10 s. */
    public Duration maxBackoff() {
        return maxBackoff;
    }

    /** Name of this relay instance, used in logs and as the database {@code application_name}. */
    public String relayName() {
        return relayName;
    }

    /**
     * Estimated bytes of rows held at once, from fetch until settled, over all batches in flight; each fetch reads
     * at most its share (one row always). Default from {@link KafkaOptions#MAX_IN_FLIGHT_BYTES} for this JVM.
     */
    public long maxInFlightBytes() {
        return maxInFlightBytes;
    }

    @Override
    public String toString() {
        return "PollSettings[table=" + table + ", onPublish=" + onPublish + ", batchSize=" + batchSize
                + ", maxInFlightBytes=" + MemoryBudget.format(maxInFlightBytes)
                + ", pipelineDepth=" + pipelineDepth + ", pollInterval=" + pollInterval + ", maxAttempts=" + maxAttempts
                + ", onPoison=" + onPoison + ", retention=" + retention + ", purgeInterval=" + purgeInterval
                + ", deadLetterTopic=" + deadLetterTopic + ", relayName=" + relayName + "]";
    }

    /** Builds {@link PollSettings}; every setter validates its argument at once. */
    public static final class Builder {
        // Defaults come from the option declarations; only settings without an option are set here.
        private OutboxTable table = DatabaseOptions.TABLE.parsedDefault();
        private OnPublish onPublish = KafkaOptions.ON_PUBLISH.parsedDefault();
        private int batchSize = PollOptions.BATCH_SIZE.parsedDefault();
        private int pipelineDepth = PollOptions.PIPELINE_DEPTH.parsedDefault();
        private Duration pollInterval = PollOptions.POLL_INTERVAL.parsedDefault();
        private int maxAttempts = KafkaOptions.MAX_ATTEMPTS.parsedDefault();
        private OnPoison onPoison = KafkaOptions.ON_POISON.parsedDefault();
        private Duration retention = KafkaOptions.RETENTION.parsedDefault();
        private Duration purgeInterval = KafkaOptions.PURGE_INTERVAL.parsedDefault();
        private int purgeBatchSize = RetentionPurger.DEFAULT_BATCH_SIZE;
        private String deadLetterTopic;
        private Duration standbyInterval = PollOptions.STANDBY_INTERVAL.parsedDefault();
        private Duration maxBackoff = Duration.ofSeconds(10);
        private String relayName = InstanceOptions.RELAY_NAME.parsedDefault();
        private long maxInFlightBytes = KafkaOptions.defaultInFlightBytes();

        private Builder() {
        }

        public Builder table(OutboxTable value) {
            this.table = Objects.requireNonNull(value, "table");
            return this;
        }

        public Builder onPublish(OnPublish value) {
            this.onPublish = Objects.requireNonNull(value, "onPublish");
            return this;
        }

        public Builder batchSize(int value) {
            this.batchSize = atLeast("batch size", value, 1);
            return this;
        }

        public Builder pipelineDepth(int value) {
            this.pipelineDepth = atLeast("pipeline depth", value, 1);
            return this;
        }

        public Builder pollInterval(Duration value) {
            this.pollInterval = positive("poll interval", value);
            return this;
        }

        public Builder maxAttempts(int value) {
            this.maxAttempts = atLeast("max attempts", value, 1);
            return this;
        }

        public Builder onPoison(OnPoison value) {
            this.onPoison = Objects.requireNonNull(value, "onPoison");
            return this;
        }

        public Builder retention(Duration value) {
            this.retention = positive("retention", value);
            return this;
        }

        public Builder purgeInterval(Duration value) {
            this.purgeInterval = positive("purge interval", value);
            return this;
        }

        public Builder purgeBatchSize(int value) {
            this.purgeBatchSize = atLeast("purge batch size", value, 1);
            return this;
        }

        /** {@code null} or blank for none. */
        public Builder deadLetterTopic(String value) {
            this.deadLetterTopic = value == null || value.isBlank() ? null : value;
            return this;
        }

        public Builder standbyInterval(Duration value) {
            this.standbyInterval = positive("standby interval", value);
            return this;
        }

        public Builder maxBackoff(Duration value) {
            this.maxBackoff = positive("max backoff", value);
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

        public PollSettings build() {
            return new PollSettings(this);
        }

        private static int atLeast(String what, int value, int min) {
            if (value < min) {
                throw new IllegalArgumentException(what + " must be at least " + min + ", was " + value);
            }
            return value;
        }

        private static Duration positive(String what, Duration value) {
            Objects.requireNonNull(value, what);
            if (value.isNegative() || value.isZero()) {
                throw new IllegalArgumentException(what + " must be positive, was " + value);
            }
            return value;
        }
    }
}
