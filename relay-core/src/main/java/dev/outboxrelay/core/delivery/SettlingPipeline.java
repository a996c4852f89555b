package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.Heartbeat;
import dev.outboxrelay.core.delivery.DeliveryPipeline.Item;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@link DeliveryPipeline} with one settling thread. Submitting threads only route and hand records to the
 * producer ({@link Sender}); the settling thread waits for Kafka's answers and, strictly in submission order,
 * settles each batch ({@link Settler}) and only then runs its callback. Batch N+1 is thus published while batch
 * N's acknowledgements, marking and position commit complete.
 *
 * <p>Batches Kafka has answered completely by the time the settling thread gets to them are settled as one group:
 * many small batches (a trickle of transactions) cost one round of marking and one position flush, not one each.
 */
final class SettlingPipeline implements DeliveryPipeline {

    private static final Logger LOG = LoggerFactory.getLogger(SettlingPipeline.class);
    /** Batches settled together at most (one UPDATE, one position flush). */
    private static final int MAX_GROUP = 256;
    /** Unanswered for this long, Kafka counts as unavailable for health and metrics (we keep waiting). */
    private static final Duration SLOW_ACK = Duration.ofSeconds(15);

    private record Pending(SentBatch sent, Settled settled, long bytes) {
    }

    private final Sender sender;
    private final Settler settler;
    /** Null with exactly-once, whose aborted transactions are sent again in order instead. */
    private final InOrderResend resend;
    /** Null unless exactly-once: then each settle group is one Kafka transaction. */
    private final TransactionalSettler transactions;
    /**
     * Held while records are handed to the producer and queued. The settling thread holds it while it sends failed
     * records again ({@link InOrderResend}), so nothing new overtakes them, and, exactly-once, from taking a group until
     * its transaction committed, so a transaction is exactly the queued batches.
     */
    private final java.util.concurrent.locks.ReentrantLock sendLock = new java.util.concurrent.locks.ReentrantLock();
    /** Exactly-once: false until the transactional producer is ready and the last position caught up. */
    private boolean opened;
    private final int maxEvents;
    private final long maxBytes;
    private final ArrayDeque<Pending> queue = new ArrayDeque<>();
    /** Events submitted and not settled yet; guarded by this. */
    private int unsettledEvents;
    /** Estimated bytes of the events submitted and not settled yet; guarded by this. */
    private long unsettledBytes;
    private final Thread thread;
    /** Guarded by this. */
    private boolean closed;
    private volatile Throwable failure;

    SettlingPipeline(Sender sender, Settler settler, InOrderResend resend, int maxEvents, long maxBytes,
                     String threadName) {
        this(sender, settler, resend, null, maxEvents, maxBytes, threadName);
    }

    SettlingPipeline(Sender sender, Settler settler, InOrderResend resend, TransactionalSettler transactions,
                     int maxEvents, long maxBytes, String threadName) {
        this.sender = sender;
        this.settler = settler;
        this.resend = transactions == null ? resend : null;
        this.transactions = transactions;
        this.opened = transactions == null;
        this.maxEvents = maxEvents;
        this.maxBytes = maxBytes;
        this.thread = new Thread(this::settleLoop, threadName);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    @Override
    public void submit(List<Item> items, boolean fromTable, Settled settled) throws InterruptedException {
        long bytes = bytes(items);
        synchronized (this) {
            // A batch larger than the budget on its own is admitted once nothing else is in flight.
            while ((!opened || unsettledEvents >= maxEvents || queue.size() >= MAX_GROUP
                    || (unsettledEvents > 0 && unsettledBytes + bytes > maxBytes)) && !closed) {
                Heartbeat.beat(); // waiting for Kafka to take the in-flight events is progress, not a stall
                wait(1000);
            }
            if (closed) {
                throw new InterruptedException("relay is closing");
            }
        }
        List<Item> toSend = items;
        if (transactions != null && items.stream().anyMatch(i -> transactions.committedBefore(i.id()))) {
            toSend = new ArrayList<>(items);
            toSend.removeIf(i -> transactions.committedBefore(i.id())); // marked at open: in Kafka already
        }
        sendLock.lockInterruptibly();
        try {
            enqueue(sender.send(toSend, fromTable), settled, bytes);
        } finally {
            sendLock.unlock();
        }
    }

    private synchronized void enqueue(SentBatch sent, Settled settled, long bytes) {
        // Two threads may submit (new rows, and a parked key's rows from the table), never for the same key: a key
        // published from the table is parked, so new rows of it are left in the table. Per-key order is
        // submission order.
        queue.addLast(new Pending(sent, settled, bytes));
        unsettledEvents += sent.size();
        unsettledBytes += bytes;
        notifyAll();
    }

    @Override
    public boolean drain(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (this) {
            while (!queue.isEmpty()) {
                if (!thread.isAlive() || closed) {
                    throw new InterruptedException("relay is closing");
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                wait(Math.max(1, TimeUnit.NANOSECONDS.toMillis(left)));
            }
            return true;
        }
    }

    @Override
    public synchronized int unsettled() {
        return queue.size();
    }

    @Override
    public boolean inOutage() {
        return settler.inOutage();
    }

    @Override
    public String outageReason() {
        return settler.outageReason();
    }

    @Override
    public java.util.Optional<Throwable> failure() {
        return java.util.Optional.ofNullable(failure);
    }

    @Override
    public synchronized boolean isRunning() {
        return !closed;
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed && !thread.isAlive()) {
                return;
            }
            closed = true;
            notifyAll();
        }
        thread.interrupt();
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        settler.close();
    }

    private void settleLoop() {
        Heartbeat.watch();
        try {
            if (transactions != null) {
                transactions.open(() -> !isRunning());
                synchronized (this) {
                    opened = true;
                    notifyAll();
                }
            }
            while (true) {
                Pending head;
                synchronized (this) {
                    while (queue.isEmpty() && !closed) {
                        Heartbeat.beat();
                        wait(1000);
                    }
                    if (closed) {
                        return;
                    }
                    head = queue.peekFirst();
                }
                long t0 = System.nanoTime();
                while (!head.sent().awaitAnswers(System.nanoTime() + SLOW_ACK.toNanos())) {
                    Heartbeat.beat();
                    settler.slow(SLOW_ACK);
                }
                long t1 = System.nanoTime();
                List<Pending> group;
                if (transactions == null) {
                    group = group(head);
                    if (resend.needed(sents(group))) {
                        sendLock.lockInterruptibly();
                        try {
                            resend.run(sents(queued()));
                        } finally {
                            sendLock.unlock();
                        }
                        continue; // the head again, with what was sent again
                    }
                    settler.settleAll(sents(group), sender);
                    resend.settled();
                } else {
                    TransactionalSettler.Committed committed;
                    sendLock.lockInterruptibly();
                    try {
                        group = queued();
                        committed = transactions.commit(sents(group), sender, SLOW_ACK);
                    } finally {
                        sendLock.unlock();
                    }
                    transactions.settle(committed, head.sent().startedNanos);
                }
                List<SentBatch> sents = sents(group);
                long t2 = System.nanoTime();
                int last = group.size() - 1;
                while (last > 0 && group.get(last).sent().fromTable) {
                    last--; // rows from the table move no position: the last batch of new rows flushes it
                }
                for (int i = 0; i < group.size(); i++) {
                    try {
                        group.get(i).settled().run(i == last);
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
                        unsettledBytes -= done.bytes();
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
        } catch (dev.outboxrelay.core.publish.FencedException e) {
            // Not a bug: another instance of this relay took over. Its start aborted our open transaction.
            failure = e;
            LOG.warn("Stopped publishing: {}; {} batch(es) left unsettled for it", e.getMessage(), unsettled());
        } catch (RuntimeException | Error e) {
            // A bug or a JVM error, not an outage: stop publishing rather than move a position past unsettled
            // events; the daemon sees failure() and stops the process so that a standby takes over.
            failure = e;
            LOG.error("Settling published events failed; the source stops publishing and the relay exits", e);
        } finally {
            Heartbeat.unwatch();
            synchronized (this) {
                closed = true;
                notifyAll();
            }
        }
    }

    private static long bytes(List<Item> items) {
        long n = 0;
        for (Item item : items) {
            n += item.bytes();
        }
        return n;
    }

    private static List<SentBatch> sents(List<Pending> group) {
        List<SentBatch> sents = new ArrayList<>(group.size());
        group.forEach(p -> sents.add(p.sent()));
        return sents;
    }

    /** Every queued batch: exactly-once, everything sent in the open transaction. */
    private synchronized List<Pending> queued() {
        return new ArrayList<>(queue);
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
