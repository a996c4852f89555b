package dev.outboxrelay.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;
import org.slf4j.Marker;

/**
 * Rate-limits the Kafka client's own reconnect warnings: during a broker outage its network client warns for every
 * failed connection attempt (over a hundred lines in 25 s). The first WARN of each Kafka client logger passes; the
 * next ones within {@link #setIntervalSeconds interval} are dropped. The relay itself reports the outage once when it
 * starts (WARN) and once when it ends (INFO), from its Kafka probe and its settling pipeline.
 */
public final class KafkaClientNoiseFilter extends TurboFilter {

    private final Map<String, Long> lastPassed = new ConcurrentHashMap<>();
    private final LongSupplier nanoClock;
    private volatile long intervalNanos = 300_000_000_000L;

    /** With the system clock; Logback creates it from {@code logback.xml}. */
    public KafkaClientNoiseFilter() {
        this(System::nanoTime);
    }

    KafkaClientNoiseFilter(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** How long after a passed warning the same logger's next ones are dropped (default 300 s). */
    public void setIntervalSeconds(long seconds) {
        this.intervalNanos = seconds * 1_000_000_000L;
    }

    @Override
    public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params,
                              Throwable t) {
        if (level != Level.WARN || logger == null || !logger.getName().startsWith("org.apache.kafka.clients.")) {
            return FilterReply.NEUTRAL;
        }
        long now = nanoClock.getAsLong();
        Long last = lastPassed.get(logger.getName());
        if (last != null && now - last < intervalNanos) {
            return FilterReply.DENY;
        }
        lastPassed.put(logger.getName(), now);
        return FilterReply.NEUTRAL;
    }
}
