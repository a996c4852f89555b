package dev.outboxrelay.poll;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * One batch between fetch and marking. The sending thread builds it; the Kafka callbacks only complete the
 * futures; the {@link Marker} reads it once handed over.
 */
final class Batch {

    /** A row handed to the producer. */
    record Sent(OutboxRow row, String topic, CompletableFuture<RecordMetadata> ack) {
    }

    /** A row that failed before or while being handed to the producer, through its own fault. */
    record Failed(OutboxRow row, String reason) {
    }

    final long startedNanos = System.nanoTime();
    final int fetched;
    /** Timings for the per-batch DEBUG line. */
    long fetchMicros;
    long sendMicros;
    final List<Sent> sent = new ArrayList<>();
    final List<Failed> failed = new ArrayList<>();
    /** Failed rows that are malformed: they fail the same way every time. */
    final Set<java.util.UUID> malformed = new HashSet<>();
    /** Keys later batches must hold back while this batch is in flight: a row of theirs failed or may be rejected. */
    final Set<String> blockingKeys = new HashSet<>();
    /** Rows not sent because an earlier row of their key failed, or the producer was unavailable. */
    int held;
    /** Set when the producer refused work because Kafka is unavailable; the rest of the batch was held. */
    Throwable outage;
    /** Set once the batch was handed to the {@link Marker}; completes when its rows are marked. */
    CompletableFuture<Void> marked;
    private CompletableFuture<Void> allAcked;

    Batch(int fetched) {
        this.fetched = fetched;
    }

    /** Seqs of the rows this batch settles (sent or failed), which the next fetch must not return again. */
    long[] claimedSeqs() {
        long[] seqs = new long[sent.size() + failed.size()];
        int i = 0;
        for (Sent s : sent) {
            seqs[i++] = s.row().seq();
        }
        for (Failed f : failed) {
            seqs[i++] = f.row().seq();
        }
        return seqs;
    }

    boolean isEmpty() {
        return sent.isEmpty() && failed.isEmpty();
    }

    /** Completes when Kafka answered for every sent row (acknowledged or failed). */
    CompletableFuture<Void> acked() {
        if (allAcked == null) {
            allAcked = CompletableFuture.allOf(sent.stream().map(Sent::ack).toArray(CompletableFuture[]::new))
                    .handle((v, e) -> null);
        }
        return allAcked;
    }
}
