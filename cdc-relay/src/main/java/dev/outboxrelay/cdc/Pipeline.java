package dev.outboxrelay.cdc;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes batch N+1 while batch N's acknowledgements, marking and position commit complete. The submitting
 * thread (the rescan, or Debezium's engine thread) only routes and hands records to the producer; one settling
 * thread waits for Kafka's answers and, strictly in submission order, marks the acknowledged rows and only then
 * runs each batch's {@link Settled} callback (which confirms the WAL position). A batch is only submitted while
 * fewer than {@code maxEvents} events are unsettled, so at most {@code maxEvents - 1 +} one batch are in flight:
 * that bounds both memory and the duplicates a crash can cause.
 *
 * <p>Batches whose records were all acknowledged by the time the settling thread gets to them are marked with
 * one statement, and only the last of them is asked to flush its position: many small batches (a trickle of
 * transactions) cost one round of marking and confirming, not one each.
 */
final class Pipeline {

    private static final Logger LOG = LoggerFactory.getLogger(Pipeline.class);
    /** Batches settled together at most (one UPDATE, one offset flush). */
    private static final int MAX_GROUP = 256;

    /** Runs after a batch was settled; {@code last} is true for the last batch of a group settled together. */
    @FunctionalInterface
    interface Settled {
        void run(boolean last) throws InterruptedException;
    }

    private record Pending(SentBatch sent, Settled settled) {
    }

    private final BatchPublisher publisher;
    private final int maxEvents;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    /** Events submitted and not settled yet; guarded by this. */
    private int unsettledEvents;
    private final Thread settler;
    private boolean closed;

    Pipeline(BatchPublisher publisher, int maxEvents, String name) {
        this.publisher = publisher;
        this.maxEvents = maxEvents;
        this.settler = new Thread(this::settleLoop, name);
        this.settler.setDaemon(true);
        this.settler.start();
    }

    /**
     * Hands {@code items} to the producer and queues the batch for settling; blocks while {@code maxEvents}
     * events (or {@code MAX_GROUP} batches) are unsettled. An empty batch is settled in order too (its callback still moves the position).
     *
     * @throws InterruptedException when the pipeline is closed or the thread interrupted
     */
    void submit(List<BatchPublisher.Item> items, Settled settled) throws InterruptedException {
        submit(items, false, settled);
    }

    /**
     * The same for the rows of one parked key that the {@link ParkedKeyDrainer} publishes from the table
     * ({@code draining}): they are sent although their key is parked.
     */
    void submit(List<BatchPublisher.Item> items, boolean draining, Settled settled) throws InterruptedException {
        synchronized (this) {
            while ((unsettledEvents >= maxEvents || queue.size() >= MAX_GROUP) && !closed) {
                wait();
            }
            if (closed) {
                throw new InterruptedException("relay is closing");
            }
        }
        // Two threads may submit (the stream and the drainer), never for the same key: a key the drainer
        // publishes is parked, so the stream leaves its events in the table. Per-key order is submission order.
        SentBatch sent = publisher.send(items, draining);
        synchronized (this) {
            queue.addLast(new Pending(sent, settled));
            unsettledEvents += items.size();
            notifyAll();
        }
    }

    /**
     * Waits until every submitted batch is settled; false when {@code timeout} passed first.
     *
     * @throws InterruptedException when the pipeline stopped with batches unsettled
     */
    boolean drain(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            while (!queue.isEmpty()) {
                if (!settler.isAlive() || closed) {
                    throw new InterruptedException("relay is closing");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                wait(Math.max(1, left / 1_000_000));
            }
            return true;
        }
    }

    /** Number of batches submitted but not settled yet. */
    synchronized int unsettled() {
        return queue.size();
    }

    /** Stops settling; batches not settled yet are abandoned (never marked, their position never confirmed). */
    void close() {
        synchronized (this) {
            closed = true;
            notifyAll();
        }
        settler.interrupt();
        try {
            settler.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void settleLoop() {
        try {
            while (true) {
                Pending head;
                synchronized (this) {
                    while (queue.isEmpty() && !closed) {
                        wait();
                    }
                    if (closed) {
                        return;
                    }
                    head = queue.peekFirst();
                }
                long t0 = System.nanoTime();
                head.sent().awaitAnswers();
                long t1 = System.nanoTime();
                List<Pending> group = group(head);
                List<SentBatch> sents = new ArrayList<>(group.size());
                group.forEach(p -> sents.add(p.sent()));
                publisher.settleAll(sents);
                long t2 = System.nanoTime();
                int lastStreamed = group.size() - 1;
                while (lastStreamed > 0 && group.get(lastStreamed).sent().draining) {
                    lastStreamed--; // a drained batch moves no position: the last streamed one flushes it
                }
                for (int i = 0; i < group.size(); i++) {
                    try {
                        group.get(i).settled().run(i == lastStreamed);
                    } catch (RuntimeException e) {
                        // E.g. the engine that handed us the batch stopped meanwhile: its position is simply not
                        // confirmed, and the batch is replayed (duplicates, never loss).
                        LOG.warn("Could not confirm the position of a settled batch: {}", e.toString());
                    }
                }
                synchronized (this) {
                    for (int i = 0; i < group.size(); i++) {
                        Pending done = queue.pollFirst();
                        unsettledEvents -= done.sent().size();
                    }
                    notifyAll();
                }
                if (LOG.isDebugEnabled()) {
                    LOG.debug("Settled {} batch(es), {} event(s): waited {} ms for Kafka, marked in {} ms,"
                            + " confirmed in {} ms", group.size(), sents.stream().mapToInt(x -> x.items.size()).sum(),
                            (t1 - t0) / 1_000_000, (t2 - t1) / 1_000_000, (System.nanoTime() - t2) / 1_000_000);
                }
            }
        } catch (InterruptedException e) {
            LOG.debug("Settling stopped with {} batch(es) unsettled", unsettled());
        } catch (RuntimeException e) {
            // A bug, not an outage: stop publishing rather than confirm positions past unsettled events.
            LOG.error("Settling published events failed; the CDC source stops publishing (restart the relay)", e);
        } finally {
            synchronized (this) {
                closed = true;
                notifyAll();
            }
        }
    }

    /** The head and the batches right behind it that Kafka has already answered completely. */
    private synchronized List<Pending> group(Pending head) {
        List<Pending> group = new ArrayList<>();
        Iterator<Pending> it = queue.iterator();
        it.next();
        group.add(head);
        while (it.hasNext() && group.size() < MAX_GROUP) {
            Pending p = it.next();
            if (!p.sent().answered()) {
                break;
            }
            group.add(p);
        }
        return group;
    }
}
