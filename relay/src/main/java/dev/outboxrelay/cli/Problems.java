package dev.outboxrelay.cli;

import java.util.List;
import picocli.CommandLine;

/** Turns exceptions into the one-line messages operators see. */
final class Problems {

    private Problems() {
    }

    /** A picocli parse failure in our format, never echoing an option's value (it may be a secret). */
    static String describe(CommandLine.ParameterException e) {
        if (e instanceof CommandLine.UnmatchedArgumentException u && !u.getUnmatched().isEmpty()) {
            String arg = u.getUnmatched().get(0);
            if (arg.startsWith("-")) {
                return arg.replaceFirst("=.*", "") + ": unknown option";
            }
            return "unexpected argument '" + arg + "'";
        }
        if (e instanceof CommandLine.MissingParameterException m && !m.getMissing().isEmpty()
                && m.getMissing().get(0) instanceof CommandLine.Model.OptionSpec o) {
            return o.longestName() + ": needs a value";
        }
        if (e instanceof CommandLine.OverwrittenOptionException && e.getArgSpec() instanceof
                CommandLine.Model.OptionSpec o) {
            return o.longestName() + ": given more than once";
        }
        String message = e.getMessage();
        return message == null ? e.getClass().getSimpleName() : message.lines().findFirst().orElse(message);
    }

    /** The message of a runtime failure, first line only; stack traces are for --verbose. */
    static String oneLine(Throwable e) {
        String message = e.getMessage();
        if (message == null || message.isBlank()) {
            return e.getClass().getSimpleName();
        }
        List<String> lines = message.lines().toList();
        return lines.get(0);
    }
}
