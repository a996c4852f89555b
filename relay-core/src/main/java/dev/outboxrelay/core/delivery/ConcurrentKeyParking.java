package dev.outboxrelay.core.delivery;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;

final class ConcurrentKeyParking implements KeyParking {

    /** Row retries: 200 ms doubling to 10 s, half of it jitter, like the rest of the relay's backoff. */
    private static final long RETRY_INITIAL_MILLIS = 200;
    private static final long RETRY_MAX_MILLIS = Duration.ofSeconds(10).toMillis();
    private static final long DEAD_LETTER_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(2);
    /** A safety net only: the risky record's answer normally makes the key due at once. */
    private static final long AT_RISK_NANOS = TimeUnit.MINUTES.toNanos(1);
    private static final long TOPIC_RECHECK_NANOS = TimeUnit.SECONDS.toNanos(TopicLimits.RETRY_UNUSABLE_SECONDS);

    private final Map<String, Hold> holds = new ConcurrentHashMap<>();
    private final LongSupplier clock;
    private final IntConsumer sizeChanged;

    ConcurrentKeyParking(LongSupplier clock, IntConsumer sizeChanged) {
        this.clock = clock;
        this.sizeChanged = sizeChanged;
    }

    @Override
    public boolean parkIfHeld(String key) {
        if (key == null || holds.isEmpty()) {
            return false; // the common case: nothing parked, no hashing
        }
        return holds.computeIfPresent(key, (k, h) -> new Hold(k, h.reason(), h.detail(), h.dueNanos(),
                h.parkedEvents() + 1, h.retries())) != null;
    }

    @Override
    public void park(String key, Reason reason, String detail) {
        if (key == null) {
            return;
        }
        boolean[] added = {false};
        holds.compute(key, (k, h) -> {
            added[0] = h == null;
            long parked = h == null ? 1 : h.parkedEvents() + 1;
            int retries = reason != Reason.ROW_RETRY ? 0
                    : h != null && h.reason() == Reason.ROW_RETRY ? h.retries() + 1 : 1;
            return new Hold(k, reason, detail, clock.getAsLong() + waitNanos(reason, retries), parked, retries);
        });
        if (added[0]) {
            sizeChanged.accept(holds.size());
        }
    }

    @Override
    public Duration retryDueIn(String key) {
        Hold h = key == null ? null : holds.get(key);
        return h == null || h.reason() != Reason.ROW_RETRY ? null
                : Duration.ofNanos(Math.max(0, h.dueNanos() - clock.getAsLong()));
    }

    @Override
    public void restoreRetry(String key, String detail, Duration dueIn, int retries) {
        if (key != null && holds.putIfAbsent(key, new Hold(key, Reason.ROW_RETRY, detail,
                clock.getAsLong() + dueIn.toNanos(), 1, Math.max(1, retries))) == null) {
            sizeChanged.accept(holds.size());
        }
    }

    @Override
    public void parkForRetry(String key, String detail, int attempts) {
        park(key, Reason.ROW_RETRY, detail);
        holds.computeIfPresent(key, (k, h) -> h.retries() >= attempts ? h : new Hold(k, h.reason(), h.detail(),
                clock.getAsLong() + waitNanos(Reason.ROW_RETRY, attempts), h.parkedEvents(), attempts));
    }

    @Override
    public boolean isParked(String key) {
        return key != null && !holds.isEmpty() && holds.containsKey(key);
    }

    @Override
    public Reason reasonOf(String key) {
        if (key == null || holds.isEmpty()) {
            return null;
        }
        Hold h = holds.get(key);
        return h == null ? null : h.reason();
    }

    @Override
    public List<Hold> due() {
        if (holds.isEmpty()) {
            return List.of();
        }
        long now = clock.getAsLong();
        List<Hold> due = new ArrayList<>();
        for (Hold h : holds.values()) {
            if (now - h.dueNanos() >= 0) {
                due.add(h);
            }
        }
        due.sort(Comparator.comparingLong(Hold::dueNanos));
        return due;
    }

    @Override
    public void dueNow(String key) {
        if (key != null && !holds.isEmpty()) {
            long now = clock.getAsLong();
            holds.computeIfPresent(key, (k, h) -> new Hold(k, h.reason(), h.detail(), now, h.parkedEvents(),
                    h.retries()));
        }
    }

    @Override
    public void recheckLater(String key, Reason reason, String detail) {
        holds.computeIfPresent(key, (k, h) -> new Hold(k, reason, detail,
                clock.getAsLong() + waitNanos(reason, h.retries()), h.parkedEvents(),
                reason == Reason.ROW_RETRY ? h.retries() : 0));
    }

    @Override
    public boolean releaseIfUnchanged(String key, long parkedEvents) {
        boolean[] released = {false};
        holds.computeIfPresent(key, (k, h) -> {
            if (h.parkedEvents() == parkedEvents) {
                released[0] = true;
                return null;
            }
            return h;
        });
        if (released[0]) {
            sizeChanged.accept(holds.size());
        }
        return released[0];
    }

    @Override
    public Map<Reason, Integer> countByReason() {
        Map<Reason, Integer> counts = new EnumMap<>(Reason.class);
        for (Hold h : holds.values()) {
            counts.merge(h.reason(), 1, Integer::sum);
        }
        return counts;
    }

    @Override
    public int size() {
        return holds.size();
    }

    @Override
    public List<String> keys() {
        return List.copyOf(holds.keySet());
    }

    private static long waitNanos(Reason reason, int retries) {
        return switch (reason) {
            case AT_RISK -> AT_RISK_NANOS;
            case TOPIC -> TOPIC_RECHECK_NANOS;
            case DEAD_LETTER -> DEAD_LETTER_RECHECK_NANOS;
            case ROW_RETRY -> TimeUnit.MILLISECONDS.toNanos(
                    Backoff.delayMillis(RETRY_INITIAL_MILLIS, RETRY_MAX_MILLIS, retries - 1, ThreadLocalRandom.current()));
        };
    }
}
