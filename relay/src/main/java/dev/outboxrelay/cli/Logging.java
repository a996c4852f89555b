package dev.outboxrelay.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.JsonEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import org.slf4j.LoggerFactory;

/**
 * Adjusts the Logback setup from {@code logback.xml} to the command's options: DEBUG for {@code --verbose},
 * and for {@code --log-format json} Logback's own {@link JsonEncoder} on the STDERR appender (no extra
 * dependency), trimmed to timestamp, level, thread, logger, formatted message and throwable.
 */
final class Logging {

    private Logging() {
    }

    static void apply(boolean verbose, CliOptions.LogFormat format) {
        if (!(LoggerFactory.getLogger("dev.outboxrelay") instanceof Logger relay)) {
            return; // another SLF4J binding (embedding application): leave its setup alone
        }
        relay.setLevel(verbose ? Level.DEBUG : null);
        if (format == CliOptions.LogFormat.JSON
                && LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
            Appender<ILoggingEvent> appender = root.getAppender("STDERR");
            if (appender instanceof OutputStreamAppender<ILoggingEvent> stderr) {
                JsonEncoder json = new JsonEncoder();
                json.setContext(context);
                json.setWithSequenceNumber(false);
                json.setWithNanoseconds(false);
                json.setWithContext(false);
                json.setWithMessage(false);
                json.setWithArguments(false);
                json.setWithFormattedMessage(true);
                json.start();
                stderr.stop();
                stderr.setEncoder(json);
                stderr.start();
            }
        }
    }
}
