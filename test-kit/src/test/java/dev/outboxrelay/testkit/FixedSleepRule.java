package dev.outboxrelay.testkit;

import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The rule {@link NoFixedSleepTest} applies to one source file: no sleep but {@link Pacing#pause}, and no
 * assertion as the statement right after a pause (a test that asserts after a fixed pause guesses how long the
 * condition takes; it waits for the condition instead). {@code assertTimeout} is not an assertion on state: it
 * bounds an action, so it may follow a pause.
 */
final class FixedSleepRule {

    private static final Pattern SLEEP = Pattern.compile("\\bsleep\\s*\\(|\\bparkNanos\\s*\\(");
    private static final Pattern STRING = Pattern.compile("\"(\\\\.|[^\"\\\\])*\"");
    private static final Pattern PAUSE = Pattern.compile("\\bPacing\\.pause\\s*\\(");
    private static final Pattern ASSERTION = Pattern.compile("^\\s*(Assertions\\.)?(assert(?!Timeout)\\w*|fail)\\s*\\(");

    private FixedSleepRule() {
    }

    /** Each violation as {@code name:line: what}. */
    static List<String> violations(String name, List<String> lines) {
        List<String> found = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String code = code(lines.get(i));
            if (SLEEP.matcher(code).find()) {
                found.add(name + ":" + (i + 1) + ": a sleep; pace with Pacing.pause, wait with await()");
            }
            if (PAUSE.matcher(code).find()) {
                int next = nextStatement(lines, i + 1);
                if (next >= 0 && ASSERTION.matcher(code(lines.get(next))).find()) {
                    found.add(name + ":" + (next + 1) + ": an assertion right after a fixed pause;"
                            + " await() the condition (or await().during() that it holds)");
                }
            }
        }
        return found;
    }

    private static int nextStatement(List<String> lines, int from) {
        for (int i = from; i < lines.size(); i++) {
            String code = code(lines.get(i)).trim();
            if (!code.isEmpty() && !code.startsWith("*") && !code.startsWith("/*")) {
                return i;
            }
        }
        return -1;
    }

    /** The line without string literals and a trailing {@code //} comment (good enough for this code base). */
    private static String code(String line) {
        line = STRING.matcher(line).replaceAll("\"\"");
        int comment = line.indexOf("//");
        return comment < 0 ? line : line.substring(0, comment);
    }
}
