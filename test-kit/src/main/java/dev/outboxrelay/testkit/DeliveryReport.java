package dev.outboxrelay.testkit;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * What an at-least-once, per-key-ordered delivery looked like on the wire: lost ids, duplicates and per-key
 * order violations, computed from the records read back and the ids in the order they were written.
 *
 * <p>Records are identified by their {@value ReadRecord#ID_HEADER} header. The rules:
 * <ul>
 *   <li><b>Lost:</b> an expected id that no record carries.</li>
 *   <li><b>Duplicate:</b> every occurrence of an id beyond its first (expected or not). At-least-once delivery
 *       allows duplicates; {@link #exactlyOnce()} is the stricter check.</li>
 *   <li><b>Order:</b> judged per (topic, key) on the <em>first occurrence</em> of each id, in partition offset
 *       order. The first occurrences must follow the order of {@code expectedIdsInPerKeyOrder}. A redelivered
 *       id that shows up again after later ids (a producer retry or a relay restart replaying a batch) is a
 *       duplicate, not an order violation, because a consumer that deduplicates by id sees the right order.
 *       Records without a key, and ids not in the expected list, are not order-checked.</li>
 *   <li><b>Split key:</b> a (topic, key) found on more than one partition; per-key order cannot hold then.</li>
 * </ul>
 *
 * @param totalRecords           records examined
 * @param recordsWithoutId       records with no {@value ReadRecord#ID_HEADER} header
 * @param lostIds                expected ids never seen, in expected order
 * @param duplicateCount         occurrences beyond the first, summed over all ids
 * @param duplicatedIds          ids seen more than once
 * @param unexpectedIds          ids seen that were not expected
 * @param orderViolations        first occurrences that came after an id expected later
 * @param keysOnSeveralPartitions {@code topic/key} pairs seen on more than one partition
 */
public record DeliveryReport(int totalRecords, int recordsWithoutId, List<String> lostIds, int duplicateCount,
                             Set<String> duplicatedIds, Set<String> unexpectedIds,
                             List<OrderViolation> orderViolations, Set<String> keysOnSeveralPartitions) {

    /**
     * An id whose first occurrence came after the first occurrence of an id that was written later.
     *
     * @param topic     topic of the key
     * @param key       record key
     * @param id        the id that arrived too late
     * @param seenAfter the id, expected after {@code id}, that was already seen
     */
    public record OrderViolation(String topic, String key, String id, String seenAfter) {
        @Override
        public String toString() {
            return topic + "/" + key + ": " + id + " after " + seenAfter;
        }
    }

    /** Copies the collections, keeping their iteration order (sorted sets read better in failure messages). */
    public DeliveryReport {
        lostIds = List.copyOf(lostIds);
        duplicatedIds = Collections.unmodifiableSet(new LinkedHashSet<>(duplicatedIds));
        unexpectedIds = Collections.unmodifiableSet(new LinkedHashSet<>(unexpectedIds));
        orderViolations = List.copyOf(orderViolations);
        keysOnSeveralPartitions = Collections.unmodifiableSet(new LinkedHashSet<>(keysOnSeveralPartitions));
    }

    /**
     * Builds the report.
     *
     * @param records                  records read back, e.g. from {@link TopicReader}; any order
     * @param expectedIdsInPerKeyOrder every id that was written, in write order; for ids of the same key,
     *                                 earlier in this list must arrive earlier. Ids of different keys may
     *                                 interleave freely.
     */
    public static DeliveryReport of(List<ReadRecord> records, List<String> expectedIdsInPerKeyOrder) {
        Map<String, Integer> expectedIndex = new HashMap<>();
        for (String id : expectedIdsInPerKeyOrder) {
            if (expectedIndex.putIfAbsent(Objects.requireNonNull(id, "expected id"), expectedIndex.size()) != null) {
                throw new IllegalArgumentException("Expected id listed twice: " + id);
            }
        }

        Map<String, Integer> occurrences = new LinkedHashMap<>();
        int withoutId = 0;
        for (ReadRecord r : records) {
            if (r.id() == null) {
                withoutId++;
            } else {
                occurrences.merge(r.id(), 1, Integer::sum);
            }
        }
        List<String> lost = expectedIdsInPerKeyOrder.stream().filter(id -> !occurrences.containsKey(id)).toList();
        Set<String> duplicated = new TreeSet<>();
        Set<String> unexpected = new TreeSet<>();
        int duplicates = 0;
        for (Map.Entry<String, Integer> e : occurrences.entrySet()) {
            if (e.getValue() > 1) {
                duplicated.add(e.getKey());
                duplicates += e.getValue() - 1;
            }
            if (!expectedIndex.containsKey(e.getKey())) {
                unexpected.add(e.getKey());
            }
        }

        List<OrderViolation> violations = new ArrayList<>();
        Set<String> split = new TreeSet<>();
        checkOrder(records, expectedIndex, violations, split);
        return new DeliveryReport(records.size(), withoutId, lost, duplicates, duplicated, unexpected, violations, split);
    }

    private static void checkOrder(List<ReadRecord> records, Map<String, Integer> expectedIndex,
                                   List<OrderViolation> violations, Set<String> split) {
        Map<List<String>, List<ReadRecord>> byKey = new LinkedHashMap<>();
        for (ReadRecord r : records) {
            if (r.key() != null) {
                byKey.computeIfAbsent(List.of(r.topic(), r.key()), k -> new ArrayList<>()).add(r);
            }
        }
        Comparator<ReadRecord> wireOrder = Comparator.comparingInt(ReadRecord::partition).thenComparingLong(ReadRecord::offset);
        for (Map.Entry<List<String>, List<ReadRecord>> e : byKey.entrySet()) {
            String topic = e.getKey().get(0);
            String key = e.getKey().get(1);
            List<ReadRecord> group = new ArrayList<>(e.getValue());
            group.sort(wireOrder);
            if (group.stream().map(ReadRecord::partition).distinct().count() > 1) {
                split.add(topic + "/" + key);
            }
            Set<String> seen = new HashSet<>();
            int highest = -1;
            String highestId = null;
            for (ReadRecord r : group) {
                Integer index = r.id() == null ? null : expectedIndex.get(r.id());
                if (index == null || !seen.add(r.id())) {
                    continue; // unknown id, or a redelivery: duplicates are not order violations
                }
                if (index < highest) {
                    violations.add(new OrderViolation(topic, key, r.id(), highestId));
                } else {
                    highest = index;
                    highestId = r.id();
                }
            }
        }
    }

    /** No expected id is missing. */
    public boolean nothingLost() {
        return lostIds.isEmpty();
    }

    /** No per-key order violation and no key split across partitions. */
    public boolean inPerKeyOrder() {
        return orderViolations.isEmpty() && keysOnSeveralPartitions.isEmpty();
    }

    /** Nothing lost, nothing duplicated, nothing unexpected, in order. */
    public boolean exactlyOnce() {
        return nothingLost() && duplicateCount == 0 && unexpectedIds.isEmpty() && inPerKeyOrder();
    }

    /** The at-least-once, per-key-order guarantee: nothing lost and in per-key order (duplicates allowed). */
    public boolean atLeastOnceInOrder() {
        return nothingLost() && inPerKeyOrder();
    }

    /** A short, bounded description for assertion messages. */
    @Override
    public String toString() {
        return "DeliveryReport{records=" + totalRecords + ", withoutId=" + recordsWithoutId
                + ", lost=" + lostIds.size() + first(lostIds)
                + ", duplicates=" + duplicateCount + first(duplicatedIds)
                + ", unexpected=" + unexpectedIds.size() + first(unexpectedIds)
                + ", orderViolations=" + orderViolations.size() + first(orderViolations)
                + ", splitKeys=" + keysOnSeveralPartitions.size() + first(keysOnSeveralPartitions) + "}";
    }

    private static String first(Collection<?> items) {
        if (items.isEmpty()) {
            return "";
        }
        Set<Object> head = new LinkedHashSet<>();
        for (Object o : items) {
            if (head.size() == 10) {
                break;
            }
            head.add(o);
        }
        return " " + head + (items.size() > 10 ? "..." : "");
    }
}
