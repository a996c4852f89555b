package dev.outboxrelay.cdc;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A batch {@link BatchPublisher#send} handed to the producer: the records sent with their pending answers, the
 * rows that failed locally, and how many were parked. Built by the submitting thread, read by the settling one.
 */
final class SentBatch {

    final List<BatchPublisher.Item> items = new ArrayList<>();
    final List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
    final List<String> topics = new ArrayList<>();
    /** Per sent item: whether the rest of its key was parked behind it until it is answered. */
    final List<Boolean> atRisk = new ArrayList<>();
    final List<BatchPublisher.Item> malformed = new ArrayList<>();
    final List<String> malformedReasons = new ArrayList<>();
    final long startedNanos = System.nanoTime();
    /** Published from the table for a parked key by the drainer, rather than streamed. */
    final boolean draining;
    int parked;
    private final int size;

    SentBatch(boolean draining, int size) {
        this.draining = draining;
        this.size = size;
    }

    /** Rows in the batch as submitted: sent, parked and failed locally. */
    int size() {
        return size;
    }

    /** True once Kafka answered every record. */
    boolean answered() {
        for (CompletableFuture<?> f : futures) {
            if (!f.isDone()) {
                return false;
            }
        }
        return true;
    }

    /** True when every record was acknowledged and nothing failed locally: settling is one statement. */
    boolean allAcknowledged() {
        if (!malformed.isEmpty()) {
            return false;
        }
        for (CompletableFuture<?> f : futures) {
            if (!f.isDone() || f.isCompletedExceptionally()) {
                return false;
            }
        }
        return true;
    }

    void awaitAnswers() throws InterruptedException {
        for (CompletableFuture<?> f : futures) {
            try {
                f.get();
            } catch (ExecutionException e) {
                // judged by settle
            }
        }
    }
}
