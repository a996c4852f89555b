package dev.outboxrelay.core.config;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * How many bytes of events a relay may hold at once ({@code --max-in-flight-bytes}): a size, or {@code auto} for
 * an eighth of the heap but never more than the producer's {@code buffer.memory} (records beyond it would wait in
 * the producer's {@code send}). Sizes are written {@code 512KiB}, {@code 64MiB}, {@code 1GiB} (or KB, MB, GB, same
 * binary meaning) or as plain bytes.
 */
public final class MemoryBudget {

    /** Smallest budget: a handful of ordinary rows. */
    public static final long MIN_BYTES = 1L << 20;
    private static final Pattern SIZE = Pattern.compile("(\\d+)\\s*(b|k|kb|kib|m|mb|mib|g|gb|gib)?");
    private static final MemoryBudget AUTO = new MemoryBudget(0);

    /** 0 for auto. */
    private final long bytes;

    private MemoryBudget(long bytes) {
        this.bytes = bytes;
    }

    /** {@code auto} or a size; the message of a failure completes {@code --max-in-flight-bytes: ...}. */
    public static MemoryBudget parse(String raw) {
        String v = raw.trim().toLowerCase(Locale.ROOT);
        if (v.equals("auto")) {
            return AUTO;
        }
        Matcher m = SIZE.matcher(v);
        if (!m.matches()) {
            throw new IllegalArgumentException("expected auto or a size such as 512KiB, 64MiB or 1GiB, was '" + raw
                    + "'");
        }
        long n;
        try {
            n = Long.parseLong(m.group(1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("size too large: '" + raw + "'");
        }
        String unit = m.group(2) == null ? "b" : m.group(2);
        int shift = switch (unit.charAt(0)) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            default -> 0;
        };
        if (n > (Long.MAX_VALUE >> shift)) {
            throw new IllegalArgumentException("size too large: '" + raw + "'");
        }
        long size = n << shift;
        if (size < MIN_BYTES) {
            throw new IllegalArgumentException("must be at least 1MiB, was '" + raw + "'");
        }
        return new MemoryBudget(size);
    }

    /** A fixed budget of {@code bytes} (at least {@link #MIN_BYTES}). */
    public static MemoryBudget of(long bytes) {
        return parse(Long.toString(bytes));
    }

    /** True for {@code auto}. */
    public boolean isAuto() {
        return bytes == 0;
    }

    /**
     * The budget in bytes for a JVM whose heap may grow to {@code maxHeap} and a producer buffering at most
     * {@code producerBuffer} bytes: the fixed size, or for auto min(heap / 8, producer buffer), at least 1 MiB.
     */
    public long bytes(long maxHeap, long producerBuffer) {
        if (!isAuto()) {
            return bytes;
        }
        return Math.max(MIN_BYTES, Math.min(maxHeap / 8, producerBuffer));
    }

    /** {@code 12 MiB}-style text for logs and messages. */
    public static String format(long bytes) {
        if (bytes >= (1L << 30) && bytes % (1L << 20) == 0 && bytes / (1L << 20) % 1024 == 0) {
            return (bytes >> 30) + " GiB";
        }
        if (bytes >= (1L << 20)) {
            return String.format(Locale.ROOT, "%.1f MiB", bytes / (double) (1L << 20)).replace(".0 ", " ");
        }
        if (bytes >= 1024) {
            return (bytes >> 10) + " KiB";
        }
        return bytes + " B";
    }

    @Override
    public String toString() {
        return isAuto() ? "auto" : format(bytes);
    }
}
