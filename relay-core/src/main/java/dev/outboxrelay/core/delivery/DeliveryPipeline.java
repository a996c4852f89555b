package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.event.MalformedEventException;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.event.OutboxEvents;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.route.EventRouter;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * The one delivery pipeline both sources feed: route, send, await Kafka's acknowledgement, classify a failure once
 * ({@link Failures}), retry with jittered backoff, count attempts, dead-letter per {@code --on-poison}, and
 * acknowledge (mark or delete) on its own connection ({@link RowStore}). A source only produces rows and keeps its
 * position: it {@link #submit}s rows in {@code seq} order and moves its position in the {@link Settled} callback,
 * which runs strictly in submission order after every row of the batch was settled.
 *
 * <p>A row that cannot be published now holds back only its key ({@link KeyParking}): the key's rows stay unsent
 * in the table and the source publishes them again later from the table (poll: its next fetch, once the hold is
 * due; CDC: its parked-key drainer). Failure classes:
 * <ul>
 *   <li>the row's fault counts an attempt (a malformed row all of them at once: it fails the same way every time)
 *       and parks the key for a retry after a backoff; after {@code --max-attempts} the row is a dead letter,
 *       copied first to the dead-letter topic if one is set, and with {@code block} the key stays parked until an
 *       operator retries or discards it;</li>
 *   <li>the topic's fault (missing, not authorized) parks the key without an attempt; a topic known to be unusable
 *       ({@link TopicLimits}) is not even sent to until it is looked at again;</li>
 *   <li>a broker-wide failure holds back everything: the records are sent again after a backoff, no attempt
 *       counted, until Kafka takes them; the source's position does not move meanwhile.</li>
 * </ul>
 * With a transactional publisher ({@code --delivery exactly-once}) each settle group is one Kafka transaction that
 * also carries the position ({@link TransactionalSettler}); a failed record aborts it and the group is sent again
 * without the failed keys, so a {@code read_committed} consumer sees every event once.
 *
 * <p>At most {@link DeliverySettings#maxUnsettledEvents()} events and {@link DeliverySettings#maxUnsettledBytes()}
 * bytes are in flight: {@link #submit} blocks beyond that.
 */
public interface DeliveryPipeline extends AutoCloseable {

    /**
     * One row to deliver: its event, or why the row cannot be made into one together with its columns as read
     * (for the dead-letter topic's copy).
     */
    record Item(UUID id, String key, OutboxEvent event, String malformedReason, DeadLetterTopic.DyingEvent raw) {

        /** A row that is a valid event. */
        public static Item of(OutboxEvent event) {
            return new Item(event.id(), event.aggregateId(), event, null, null);
        }

        /** A row that cannot be published as it is; dead-lettered with {@code reason}. */
        public static Item malformed(DeadLetterTopic.DyingEvent raw, String reason) {
            return new Item(raw.id(), raw.aggregateId(), null, reason, raw);
        }

        /**
         * The row from its columns as read (jsonb as text; the payload a {@code String}, a {@code bytea}'s
         * {@code byte[]} or null): its event, or why it is malformed.
         */
        public static Item fromColumns(UUID id, String aggregateType, String aggregateId, String eventType,
                                       Object payload, String headers, Instant createdAt) {
            return fromColumns(id, aggregateType, aggregateId, eventType, payload, headers, createdAt, null);
        }

        /** {@link #fromColumns} with the table's other columns the relay reads, by name. */
        public static Item fromColumns(UUID id, String aggregateType, String aggregateId, String eventType,
                                       Object payload, String headers, Instant createdAt,
                                       java.util.Map<String, Object> columns) {
            try {
                return of(OutboxEvents.fromRow(id, aggregateType, aggregateId, eventType, payload, headers,
                        createdAt, columns));
            } catch (MalformedEventException e) {
                return malformed(new DeadLetterTopic.DyingEvent(id, aggregateType, aggregateId, eventType,
                        payload instanceof String s ? s.getBytes(java.nio.charset.StandardCharsets.UTF_8)
                                : (byte[]) payload), e.getMessage());
            }
        }

        /**
         * What this row costs in memory while in flight, estimated: its text (payload, headers, key) and a fixed
         * allowance for the rest. Strings of Latin-1 text take a byte per character.
         */
        public long bytes() {
            return ROW_OVERHEAD_BYTES + size(key) + (event != null ? event.estimatedBytes() : raw.estimatedBytes());
        }

        private static long size(String s) {
            return s == null ? 0 : s.length();
        }

        /** The dead-letter topic's copy of this row. */
        public DeadLetterTopic.DyingEvent dying() {
            return raw != null ? raw : new DeadLetterTopic.DyingEvent(id, event.aggregateType(),
                    event.aggregateId(), event.eventType(), event.payloadBytes());
        }
    }

    /** Bytes counted for a row besides its text: objects, ids, timestamps, the producer's record overhead. */
    long ROW_OVERHEAD_BYTES = 256;

    /** Runs once a batch is settled; {@code last} is true for the last source batch of a group settled together. */
    @FunctionalInterface
    interface Settled {
        void run(boolean last) throws InterruptedException;
    }

    /**
     * A pipeline with its own settling thread, running until {@link #close()}.
     *
     * @param rows where acknowledged rows are marked and failures recorded; the pipeline closes it
     */
    static DeliveryPipeline start(DeliverySettings settings, EventRouter router, EventPublisher publisher,
                                  TopicLimits limits, KeyParking parking, RowStore rows, RelayListener listener) {
        Settler settler = new Settler(settings, publisher, limits, parking, rows, listener);
        Sender sender = new Sender(router, publisher, limits, parking, settings.onPoison());
        TransactionalSettler transactions = publisher.stateTopic().map(state -> {
            if (settings.deadLetterTopic().isPresent()) {
                throw new IllegalArgumentException("a dead-letter topic is not supported with exactly-once delivery");
            }
            return new TransactionalSettler(settler, settings, publisher, state, state.transactionalId(), limits,
                    parking, rows, listener);
        }).orElse(null);
        InOrderResend resend = new InOrderResend(sender, publisher, parking, settler, listener);
        return new SettlingPipeline(sender, settler, resend, transactions, settings.maxUnsettledEvents(),
                settings.maxUnsettledBytes(), settings.threadName());
    }

    /**
     * Routes {@code items} (in {@code seq} order) and hands them to the producer without waiting for Kafka, then
     * queues the batch for settling; blocks while the pipeline is full. Items of a parked key are left in the
     * table, unless {@code fromTable}: the source publishes a parked key's rows from the table (and no other thread
     * submits rows of that key meanwhile). An empty batch is settled in order too (its callback still runs).
     *
     * @throws InterruptedException when the pipeline is closed or stopped, or the thread is interrupted
     */
    void submit(List<Item> items, boolean fromTable, Settled settled) throws InterruptedException;

    /**
     * Waits until every submitted batch is settled; false when {@code timeout} passed first.
     *
     * @throws InterruptedException when the pipeline stopped with batches unsettled
     */
    boolean drain(Duration timeout) throws InterruptedException;

    /** Batches submitted and not settled yet. */
    int unsettled();

    /** True while Kafka fails broker-wide or has not answered a batch for a while (records are being retried). */
    boolean inOutage();

    /** While {@link #inOutage()}: what Kafka failed with, as the exception's type; null otherwise. */
    default String outageReason() {
        return null;
    }

    /** False once closed, or once the settling thread stopped on a bug (the source must stop publishing). */
    boolean isRunning();

    /** What stopped the settling thread by itself (a bug, an {@link Error}); empty while running or after close. */
    java.util.Optional<Throwable> failure();

    /** Stops settling; batches not settled yet are abandoned: never marked, their callbacks never run. Idempotent. */
    @Override
    void close();
}
