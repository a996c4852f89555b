package dev.outboxrelay.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.Appender;
import ch.qos.logback.core.OutputStreamAppender;
import java.util.Map;
import net.logstash.logback.encoder.LogstashEncoder;
import net.logstash.logback.fieldnames.LogstashFieldNames;
import org.slf4j.LoggerFactory;

/**
 * Adjusts the Logback setup from {@code logback.xml} to the command's options: DEBUG for {@code --verbose}, and
 * for {@code --log-format json} one JSON object per line (logstash-logback-encoder): {@code @timestamp} in
 * ISO-8601, level, thread, logger, message, stack trace, the process-wide {@code fields} (relay name, mode) and
 * the key-value pairs a log call adds (e.g. {@code topic}).
 */
final class Logging {

    private Logging() {
    }

    /**
     * @param fields written into every JSON line, e.g. {@code relay} and {@code mode} of {@code run}
     */
    static void apply(boolean verbose, CliOptions.LogFormat format, Map<String, String> fields) {
        if (!(LoggerFactory.getLogger("dev.outboxrelay") instanceof Logger relay)) {
            return; // another SLF4J binding (embedding application): leave its setup alone
        }
        relay.setLevel(verbose ? Level.DEBUG : null);
        if (format == CliOptions.LogFormat.JSON
                && LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
            // Context properties are the encoder's per-process fields: the same in every thread's lines.
            fields.forEach(context::putProperty);
            Logger root = context.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
            Appender<ILoggingEvent> appender = root.getAppender("STDERR");
            if (appender instanceof OutputStreamAppender<ILoggingEvent> stderr) {
                LogstashEncoder json = jsonEncoder(context);
                stderr.stop();
                stderr.setEncoder(json);
                stderr.start();
            }
        }
    }

    /** The started JSON encoder: the context's properties become fields of every line. */
    static LogstashEncoder jsonEncoder(LoggerContext context) {
        LogstashEncoder json = new LogstashEncoder();
        json.setContext(context);
        LogstashFieldNames names = new LogstashFieldNames();
        names.setVersion("[ignore]");
        names.setLevelValue("[ignore]");
        json.setFieldNames(names);
        json.start();
        return json;
    }
}
