package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.producer.RecordMetadata;

/**
 * A batch the {@link Sender} handed to the producer: the records sent with their pending answers, the rows that
 * failed locally, and how many were left parked. Built by the submitting thread, read by the settling one.
 */
final class SentBatch {

    final List<Item> items = new ArrayList<>();
    final List<CompletableFuture<RecordMetadata>> futures = new ArrayList<>();
    final List<String> topics = new ArrayList<>();
    /** Per sent item: whether the rest of its key was parked behind it until it is answered. */
    final List<Boolean> atRisk = new ArrayList<>();
    final List<Item> malformed = new ArrayList<>();
    final List<String> malformedReasons = new ArrayList<>();
    final long startedNanos = System.nanoTime();
    /** Rows of parked keys the source publishes from the table, rather than new rows. */
    final boolean fromTable;
    int parked;
    private final int size;

    SentBatch(boolean fromTable, int size) {
        this.fromTable = fromTable;
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

    /** True when a record failed broker-wide: the pipeline sends it again, in order, before settling this batch. */
    boolean failedBrokerWide() {
        for (CompletableFuture<RecordMetadata> f : futures) {
            if (f.isCompletedExceptionally() && Failures.classify(f.handle((m, e) -> e).join()) == FailureClass.BROKER) {
                return true;
            }
        }
        return false;
    }

    /** Takes sent item {@code i} out of the batch: its row stays unsent in the table, as if it had been parked. */
    void leaveInTable(int i) {
        items.remove(i);
        futures.remove(i);
        topics.remove(i);
        atRisk.remove(i);
        parked++;
    }

    /** Waits until Kafka answered every record, at most until {@code deadlineNanos}; false if it had not by then. */
    boolean awaitAnswers(long deadlineNanos) throws InterruptedException {
        for (CompletableFuture<?> f : futures) {
            try {
                f.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
            } catch (ExecutionException e) {
                // judged when settling
            } catch (TimeoutException e) {
                return false;
            }
        }
        return true;
    }
}
