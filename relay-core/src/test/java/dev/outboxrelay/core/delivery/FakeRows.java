package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.acknowledge.Acknowledger.Failure;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/** The outbox table as far as the pipeline writes it: marks and attempts; dead at max attempts. */
final class FakeRows implements RowStore {
    /** Thrown by the next write, once, if set. */
    volatile RuntimeException failNext;
    final List<UUID> acknowledged = new CopyOnWriteArrayList<>();
    final Map<UUID, Integer> attempts = new ConcurrentHashMap<>();

    @Override
    public void acknowledge(List<UUID> ids) {
        failIfTold();
        acknowledged.addAll(ids);
    }

    @Override
    public Collection<UUID> record(List<UUID> acked, List<Failure> failures, int maxAttempts) {
        failIfTold();
        acknowledged.addAll(acked);
        List<UUID> dead = new ArrayList<>();
        for (Failure f : failures) {
            if (attempts.merge(f.id(), 1, Integer::sum) >= maxAttempts && !dead.contains(f.id())) {
                dead.add(f.id());
            }
        }
        return dead;
    }

    /** The rows held for a retry, with their delays. */
    final Map<UUID, java.time.Duration> held = new ConcurrentHashMap<>();

    @Override
    public void holdForRetry(Map<UUID, java.time.Duration> delays) {
        failIfTold();
        held.putAll(delays);
    }

    @Override
    public Map<UUID, Integer> attempts(Collection<UUID> ids) {
        Map<UUID, Integer> result = new HashMap<>();
        ids.forEach(id -> result.put(id, attempts.getOrDefault(id, 0)));
        return result;
    }

    @Override
    public void close() {
    }

    private void failIfTold() {
        RuntimeException e = failNext;
        if (e != null) {
            failNext = null;
            throw e;
        }
    }
}
