package dev.outboxrelay.testkit;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.AppenderBase;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.LoggerFactory;

/**
 * Log events of some loggers, captured while a test runs and safe to read while the relay's threads still log.
 *
 * <p>Logback's {@code ListAppender} keeps a plain {@code ArrayList}: a test polling it while a source thread
 * appends fails with {@code ConcurrentModificationException} now and then (seen in CI). Close to detach.
 */
public final class CapturedLogs implements AutoCloseable {

    private final List<ILoggingEvent> events = new CopyOnWriteArrayList<>();
    private final List<Logger> loggers;
    private final AppenderBase<ILoggingEvent> appender = new AppenderBase<>() {
        @Override
        protected void append(ILoggingEvent event) {
            events.add(event);
        }
    };

    private CapturedLogs(List<Logger> loggers) {
        this.loggers = loggers;
        appender.setName("captured-logs");
        appender.start();
        loggers.forEach(l -> l.addAppender(appender));
    }

    /** Captures what these classes' loggers log. */
    public static CapturedLogs of(Class<?>... classes) {
        return new CapturedLogs(java.util.Arrays.stream(classes)
                .map(c -> (Logger) LoggerFactory.getLogger(c)).toList());
    }

    /** Captures what the named loggers (and their children) log. */
    public static CapturedLogs named(String... names) {
        return new CapturedLogs(java.util.Arrays.stream(names)
                .map(n -> (Logger) LoggerFactory.getLogger(n)).toList());
    }

    /** Captures everything. */
    public static CapturedLogs all() {
        return named(org.slf4j.Logger.ROOT_LOGGER_NAME);
    }

    /** A snapshot of the events so far, oldest first. */
    public List<ILoggingEvent> events() {
        return List.copyOf(events);
    }

    /** The formatted messages logged at exactly this level so far. */
    public List<String> messages(Level level) {
        return events.stream().filter(e -> e.getLevel() == level).map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** Every formatted message so far. */
    public List<String> messages() {
        return events.stream().map(ILoggingEvent::getFormattedMessage).toList();
    }

    /** Forgets what was captured so far. */
    public void clear() {
        events.clear();
    }

    @Override
    public void close() {
        loggers.forEach(l -> l.detachAppender(appender));
        appender.stop();
    }
}
