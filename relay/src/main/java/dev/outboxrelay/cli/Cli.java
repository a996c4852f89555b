package dev.outboxrelay.cli;

import dev.outboxrelay.core.SourceFactory;
import dev.outboxrelay.core.config.ConfigException;
import dev.outboxrelay.core.config.ConfigSources;
import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.RelayConfig;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ParseResult;

/** Parses the command line, resolves the configuration and dispatches to a {@link Command}. */
final class Cli {

    static final String NAME = "outbox-relay";

    private final Map<String, String> env;
    private final PrintStream out;
    private final PrintStream err;
    private final List<Command> commands;

    Cli(Map<String, SourceFactory> factories, Map<String, String> env, PrintStream out, PrintStream err) {
        this.env = Map.copyOf(env);
        this.out = out;
        this.err = err;
        this.commands = List.of(new MigrateCommand(), new RunCommand(factories), new VerifyCommand());
    }

    List<Command> commands() {
        return commands;
    }

    int execute(String[] args) {
        ConfigSources.Builder sources = ConfigSources.builder().environment(env);
        Set<Option<?>> envOnly = new LinkedHashSet<>();
        commands.forEach(c -> c.spec().options().stream().filter(Option::environmentOnly).forEach(envOnly::add));
        Args split = Args.split(args, envOnly, sources);

        CommandLine root = rootCommandLine();
        ParseResult parsed;
        try {
            parsed = root.parseArgs(split.remaining.toArray(String[]::new));
        } catch (CommandLine.ParameterException e) {
            return usageError(List.of(Problems.describe(e)), e.getCommandLine().getCommandName());
        }
        if (CommandLine.printHelpIfRequested(parsed)) {
            return Main.OK;
        }
        if (!parsed.hasSubcommand()) {
            return usageError(List.of("missing command: migrate or run"), NAME);
        }
        ParseResult sub = parsed.subcommand();
        Command command = commands.stream().filter(c -> c.name().equals(sub.commandSpec().name())).findFirst()
                .orElseThrow();
        for (OptionSpec o : sub.matchedOptions()) {
            if (!o.usageHelp() && !o.versionHelp()) {
                sources.flag(o.longestName().substring(2), String.valueOf((Object) o.getValue()));
            }
        }
        RelayConfig config;
        try {
            config = command.resolve(sources.build(), tolerated());
        } catch (ConfigException e) {
            return usageError(e.problems(), command.name());
        }
        boolean verbose = config.get(CliOptions.VERBOSE);
        Logging.apply(verbose);
        try {
            return command.execute(config, out, err);
        } catch (Exception e) {
            err.println("error: " + Problems.oneLine(e));
            if (verbose) {
                e.printStackTrace(err);
            }
            return Main.FAILURE;
        }
    }

    private int usageError(List<String> problems, String commandName) {
        String help = NAME.equals(commandName) ? NAME + " --help" : NAME + " " + commandName + " --help";
        for (int i = 0; i < problems.size(); i++) {
            err.println("error: " + problems.get(i) + (i == problems.size() - 1 ? " (see '" + help + "')" : ""));
        }
        return Main.USAGE;
    }

    /** Config file keys any command knows: one file may serve migrate and run. */
    private Set<String> tolerated() {
        Set<String> names = new LinkedHashSet<>();
        for (Command c : commands) {
            c.spec().options().forEach(o -> names.add(o.name()));
            c.spec().passthroughs().forEach(p -> names.add(p.prefix()));
        }
        return names;
    }

    private CommandLine rootCommandLine() {
        CommandSpec spec = CommandSpec.create().name(NAME);
        spec.mixinStandardHelpOptions(true);
        spec.version(NAME + " " + version());
        spec.usageMessage().width(100);
        spec.usageMessage().description(
                "Relays events from a PostgreSQL transactional outbox table to Kafka, at least once, in per-key order.");
        spec.usageMessage().footer("", "Exit codes: 0 success, 1 runtime failure, 2 usage or configuration error.",
                "", "Examples:",
                "  " + NAME + " migrate --db-url jdbc:postgresql://db:5432/app --db-user relay",
                "  " + NAME + " run --mode poll --db-url jdbc:postgresql://db:5432/app --db-user relay \\",
                "      --kafka-bootstrap kafka:9092");
        CommandLine root = new CommandLine(spec);
        for (Command c : commands) {
            CommandSpec sub = CommandSpecs.command(c.name(), c.description(), c.spec(), c.examples());
            sub.version(spec.version());
            root.addSubcommand(c.name(), new CommandLine(sub));
        }
        root.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        root.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        return root;
    }

    static String version() {
        try (InputStream in = Cli.class.getResourceAsStream("version.properties")) {
            Properties p = new Properties();
            if (in != null) {
                p.load(in);
            }
            return p.getProperty("version", "unknown");
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** One subcommand: its options, help and behaviour. */
    interface Command {
        String name();

        String description();

        /** All options, for help. */
        ConfigSpec spec();

        List<String> examples();

        /** Validates the inputs into a config; may relax requirements (migrate --print needs no database). */
        default RelayConfig resolve(ConfigSources sources, Set<String> tolerated) {
            return spec().tolerating(new ArrayList<>(tolerated)).resolve(sources);
        }

        int execute(RelayConfig config, PrintStream out, PrintStream err) throws Exception;
    }
}
