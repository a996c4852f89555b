package dev.outboxrelay.cli;

import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.Passthrough;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Builds picocli command specs from option declarations, so help text, defaults and environment variable
 * names have one source. Options are plain strings to picocli: the config layer converts and validates, so
 * that every problem is reported together and in our words.
 */
final class CommandSpecs {

    private CommandSpecs() {
    }

    /**
     * @param description one-line summary
     * @param examples    command lines shown under "Examples:" in the help footer
     */
    static CommandSpec command(String name, String description, ConfigSpec config, List<String> examples) {
        CommandSpec spec = CommandSpec.create().name(name);
        spec.mixinStandardHelpOptions(true);
        spec.usageMessage().description(description).sortOptions(false).abbreviateSynopsis(true).width(100);
        for (Option<?> o : config.options()) {
            if (!o.environmentOnly()) {
                spec.addOption(option(o));
            }
        }
        spec.usageMessage().footer(escape(footer(config, examples)));
        return spec;
    }

    private static OptionSpec option(Option<?> o) {
        boolean bool = o.type().label().equals("boolean");
        OptionSpec.Builder b = OptionSpec.builder(o.flag())
                .type(String.class)
                .paramLabel("<" + o.type().label() + ">")
                .description(escape(describe(o)));
        if (bool) {
            b.arity("0..1").fallbackValue("true").paramLabel("<true|false>");
        } else if (OpsOptions.REPEATABLE.contains(o)) {
            b.arity("1").type(List.class).auxiliaryTypes(String.class);
        } else {
            b.arity("1");
        }
        return b.build();
    }

    /** Help shows {@code ${aggregateType}} literally: picocli would otherwise interpolate it as a variable. */
    static String[] escape(String[] lines) {
        String[] escaped = new String[lines.length];
        for (int i = 0; i < lines.length; i++) {
            escaped[i] = lines[i].replace("${", "$${");
        }
        return escaped;
    }

    private static String[] describe(Option<?> o) {
        List<String> lines = new ArrayList<>();
        lines.add(o.doc());
        StringBuilder meta = new StringBuilder();
        if (o.required()) {
            meta.append("Required. ");
        }
        // A secret's default would be a value too: never shown (none declares one, but keep it that way).
        if (o.defaultValue() != null && !o.secret()) {
            meta.append("Default: ").append(o.defaultValue()).append(". ");
        }
        meta.append("Env: ").append(o.envVar()).append('.');
        lines.add(meta.toString());
        if (o.example() != null && !o.secret()) {
            lines.add("Example: " + o.flag() + "=" + o.example());
        }
        return lines.toArray(String[]::new);
    }

    private static String[] footer(ConfigSpec config, List<String> examples) {
        List<String> lines = new ArrayList<>();
        List<Option<?>> envOnly = config.options().stream().filter(Option::environmentOnly).toList();
        List<Passthrough> passthroughs = config.passthroughs();
        if (!passthroughs.isEmpty()) {
            lines.add("");
            lines.add("Passthrough:");
            for (Passthrough p : passthroughs) {
                lines.add("  " + p.flagPrefix() + "<property>=<value>");
                lines.add("      " + p.doc());
                lines.add("      Example: " + p.example());
            }
        }
        if (!envOnly.isEmpty()) {
            lines.add("");
            lines.add("Environment only:");
            for (Option<?> o : envOnly) {
                lines.add("  " + o.envVar());
                lines.add("      " + o.doc());
            }
        }
        lines.add("");
        lines.add("Precedence: command line > RELAY_<OPTION> environment > --config file > default.");
        lines.add("");
        lines.add("Example" + (examples.size() > 1 ? "s" : "") + ":");
        examples.forEach(e -> lines.add("  " + e));
        return lines.toArray(String[]::new);
    }
}
