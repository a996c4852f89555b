package dev.outboxrelay.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import org.slf4j.LoggerFactory;

/**
 * Adjusts the Logback setup from {@code logback.xml} to the command's options. The hook for
 * {@code --log-format json} (operations issue) belongs here: swap the STDERR appender's encoder.
 */
final class Logging {

    private Logging() {
    }

    static void apply(boolean verbose) {
        if (LoggerFactory.getLogger("dev.outboxrelay") instanceof Logger relay) {
            relay.setLevel(verbose ? Level.DEBUG : null);
        }
    }
}
