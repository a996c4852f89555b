package dev.outboxrelay.cli;

import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.OptionSet;
import dev.outboxrelay.core.config.Passthrough;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Generates the option tables of {@code docs/operator-guide.md} from the declarations, between the markers
 * {@link #BEGIN} and {@link #END}. Run {@code main} with the guide's path to refresh it; a test fails when the
 * guide is stale.
 */
public final class OptionDocs {

    static final String BEGIN = "<!-- BEGIN GENERATED OPTIONS: edit the declarations, then run dev.outboxrelay.cli.OptionDocs -->";
    static final String END = "<!-- END GENERATED OPTIONS -->";

    private OptionDocs() {
    }

    /** Rewrites the generated section of the guide at {@code args[0]}. */
    public static void main(String[] args) throws IOException {
        Path guide = Path.of(args[0]);
        Files.writeString(guide, withGeneratedSection(Files.readString(guide, StandardCharsets.UTF_8)),
                StandardCharsets.UTF_8);
    }

    /** {@code text} with the section between the markers replaced by the current tables. */
    static String withGeneratedSection(String text) {
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        if (begin < 0 || end < begin) {
            throw new IllegalArgumentException("the guide has no generated options section (markers missing)");
        }
        return text.substring(0, begin + BEGIN.length()) + "\n" + markdown() + text.substring(end);
    }

    /** The tables for every option of every command, grouped by option set, each option once. */
    static String markdown() {
        StringBuilder md = new StringBuilder();
        Cli cli = new Cli(Main.sourceFactories(), Map.of(), System.out, System.err);
        Set<Option<?>> done = java.util.Collections.newSetFromMap(new IdentityHashMap<>());
        for (Cli.Command command : cli.commands()) {
            ConfigSpec spec = command.spec();
            for (OptionSet set : spec.sets()) {
                List<Option<?>> fresh = set.options().stream().filter(done::add).toList();
                if (fresh.isEmpty() && set.passthroughs().isEmpty()) {
                    continue;
                }
                md.append("\n#### ").append(set.title()).append(" (").append(usedBy(cli, set)).append(")\n\n")
                        .append("| Option | Environment | Type | Default | Description | Example |\n")
                        .append("|---|---|---|---|---|---|\n");
                for (Option<?> o : fresh) {
                    md.append("| ").append(o.environmentOnly() ? "(environment only)" : "`" + o.flag() + "`")
                            .append(" | `").append(o.envVar()).append("` | ").append(cell(o.type().label()))
                            .append(" | ").append(o.required() ? "required" : o.defaultValue() == null ? ""
                                    : "`" + o.defaultValue() + "`")
                            .append(" | ").append(cell(o.doc()))
                            .append(" | ").append(o.example() == null || o.secret() ? "" : "`" + o.example() + "`")
                            .append(" |\n");
                }
                for (Passthrough p : set.passthroughs()) {
                    md.append("| `").append(p.flagPrefix()).append("<property>=<value>` | config file key `")
                            .append(p.prefix()).append(".<property>` | passthrough |  | ").append(cell(p.doc()))
                            .append(" | `").append(p.example()).append("` |\n");
                }
            }
        }
        return md.append('\n').toString();
    }

    private static String usedBy(Cli cli, OptionSet set) {
        return String.join(", ", cli.commands().stream().filter(c -> c.spec().sets().contains(set))
                .map(cli::qualifiedName).toList());
    }

    private static String cell(String text) {
        return text.replace("|", "\\|");
    }
}
