package dev.outboxrelay.cli;

import dev.outboxrelay.core.config.ConfigSources;
import dev.outboxrelay.core.config.Option;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Takes out of the argument list what picocli must not see: passthrough flags ({@code --kafka.linger.ms=10},
 * an open-ended family picocli cannot declare) and environment-only options such as {@code --db-password},
 * which go to the config layer so that it rejects them with the proper hint, without echoing the value.
 */
final class Args {

    private static final Pattern PASSTHROUGH = Pattern.compile("--([a-z][a-z0-9-]*)\\.([^=\\s]+)(?:=(.*))?",
            Pattern.DOTALL);

    final List<String> remaining = new ArrayList<>();

    private Args() {
    }

    /**
     * @param booleanFlags flags such as {@code --dry-run}: given alone they mean {@code true} and never take the
     *                     next argument as their value ({@code --dry-run=false} still works)
     */
    static Args split(String[] args, Collection<Option<?>> environmentOnly, Collection<String> booleanFlags,
                      ConfigSources.Builder sources) {
        Args result = new Args();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--")) {
                for (int j = i; j < args.length; j++) {
                    result.remaining.add(args[j]);
                }
                break;
            }
            Matcher m = PASSTHROUGH.matcher(arg);
            if (m.matches()) {
                String value = m.group(3);
                if (value == null && i + 1 < args.length && !args[i + 1].startsWith("--")) {
                    value = args[++i];
                }
                sources.passthroughFlag(m.group(1), m.group(2), value == null ? "" : value);
                continue;
            }
            Option<?> envOnly = environmentOnly.stream()
                    .filter(o -> arg.equals(o.flag()) || arg.startsWith(o.flag() + "=")).findFirst().orElse(null);
            if (envOnly != null) {
                if (arg.equals(envOnly.flag()) && i + 1 < args.length && !args[i + 1].startsWith("--")) {
                    i++; // the value: dropped, never stored or echoed
                }
                sources.flag(envOnly.name(), "");
                continue;
            }
            result.remaining.add(booleanFlags.contains(arg) ? arg + "=true" : arg);
        }
        return result;
    }
}
