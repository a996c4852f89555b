package dev.outboxrelay.demo;

import java.util.Arrays;
import java.util.Locale;

/** Latencies in microseconds, sorted once, with nearest-rank percentiles. */
final class Percentiles {

    private final long[] sortedMicros;

    Percentiles(long[] micros) {
        this.sortedMicros = micros.clone();
        Arrays.sort(sortedMicros);
    }

    /** Nearest-rank percentile in microseconds; -1 when empty. */
    long micros(double quantile) {
        if (sortedMicros.length == 0) {
            return -1;
        }
        int rank = (int) Math.ceil(quantile * sortedMicros.length);
        return sortedMicros[Math.max(0, Math.min(sortedMicros.length - 1, rank - 1))];
    }

    /** E.g. {@code "   12 ms"}, or {@code "    - ms"} when nothing was measured. */
    String format(double quantile) {
        long us = micros(quantile);
        if (us < 0) {
            return "    - ms";
        }
        return String.format(Locale.ROOT, "%5d ms", us / 1000);
    }
}
