package dev.outboxrelay.cli;

import dev.outboxrelay.core.SourceFactory;
import dev.outboxrelay.core.config.ConfigException;
import dev.outboxrelay.core.config.ConfigSources;
import dev.outboxrelay.core.config.ConfigSpec;
import dev.outboxrelay.core.config.InstanceOptions;
import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.OptionType;
import dev.outboxrelay.core.config.RelayConfig;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
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
        this.commands = List.of(new MigrateCommand(), new RunCommand(factories), new StatusCommand(factories),
                DeadLettersCommand.group(), new VerifyCommand());
    }

    /** Every command that runs, children of groups included, in declaration order. */
    List<Command> commands() {
        List<Command> leaves = new ArrayList<>();
        for (Command c : commands) {
            if (c.children().isEmpty()) {
                leaves.add(c);
            } else {
                leaves.addAll(c.children());
            }
        }
        return leaves;
    }

    /** {@code run}, or {@code dead-letters retry} for a group's child. */
    String qualifiedName(Command command) {
        for (Command c : commands) {
            if (c.children().contains(command)) {
                return c.name() + " " + command.name();
            }
        }
        return command.name();
    }

    int execute(String[] args) {
        ConfigSources.Builder sources = ConfigSources.builder().environment(env);
        Set<Option<?>> envOnly = new LinkedHashSet<>();
        Set<String> booleans = new LinkedHashSet<>();
        commands().forEach(c -> c.spec().options().stream().filter(Option::environmentOnly).forEach(envOnly::add));
        commands().stream().flatMap(c -> java.util.stream.Stream.concat(java.util.stream.Stream.of(c), c.children().stream()))
                .flatMap(c -> c.spec().options().stream())
                .filter(o -> o.type().label().equals("boolean")).forEach(o -> booleans.add(o.flag()));
        Args split = Args.split(args, envOnly, booleans, sources);

        Map<CommandSpec, Command> bySpec = new IdentityHashMap<>();
        CommandLine root = rootCommandLine(bySpec);
        ParseResult parsed;
        try {
            parsed = root.parseArgs(split.remaining.toArray(String[]::new));
        } catch (CommandLine.ParameterException e) {
            return usageError(List.of(Problems.describe(e)), qualified(e.getCommandLine().getCommandSpec()));
        }
        if (CommandLine.printHelpIfRequested(parsed)) {
            return Main.OK;
        }
        if (!parsed.hasSubcommand()) {
            return usageError(List.of("missing command: " + String.join(", ", commands.stream().map(Command::name)
                    .toList())), NAME);
        }
        ParseResult sub = parsed.subcommand();
        while (sub.hasSubcommand()) {
            sub = sub.subcommand();
        }
        Command command = bySpec.get(sub.commandSpec());
        if (!command.children().isEmpty()) {
            return usageError(List.of(command.name() + ": missing action: " + String.join(", ",
                    command.children().stream().map(Command::name).toList())), command.name());
        }
        for (OptionSpec o : sub.matchedOptions()) {
            if (!o.usageHelp() && !o.versionHelp()) {
                Object value = o.getValue();
                String text = value instanceof List<?> list
                        ? String.join(",", list.stream().map(String::valueOf).toList()) : String.valueOf(value);
                sources.flag(o.longestName().substring(2), text);
            }
        }
        RelayConfig config;
        try {
            config = command.resolve(sources.build(), tolerated());
        } catch (ConfigException e) {
            return usageError(e.problems(), qualifiedName(command));
        }
        boolean verbose = config.get(CliOptions.VERBOSE);
        Map<String, String> logFields = new java.util.LinkedHashMap<>();
        config.find(InstanceOptions.RELAY_NAME).ifPresent(name -> logFields.put("relay", name));
        config.find(CliOptions.MODE).ifPresent(mode -> logFields.put("mode", OptionType.nameOf(mode)));
        Logging.apply(verbose, config.get(CliOptions.LOG_FORMAT), logFields);
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

    private static String qualified(CommandSpec spec) {
        String q = spec.qualifiedName(" ");
        return q.equals(NAME) ? NAME : q.substring(NAME.length() + 1);
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
        for (Command c : commands()) {
            c.spec().options().forEach(o -> names.add(o.name()));
            c.spec().passthroughs().forEach(p -> names.add(p.prefix()));
        }
        return names;
    }

    private CommandLine rootCommandLine(Map<CommandSpec, Command> bySpec) {
        CommandSpec spec = CommandSpec.create().name(NAME);
        spec.mixinStandardHelpOptions(true);
        spec.version(NAME + " " + version());
        spec.usageMessage().width(100);
        spec.usageMessage().description(
                "Relays events from a PostgreSQL transactional outbox table to Kafka, at least once, in per-key order.");
        spec.usageMessage().footer("", "Exit codes: 0 success, 1 runtime failure, 2 usage or configuration error,"
                        + " 3 status found the outbox unhealthy or verify could not check.",
                "", "Examples:",
                "  " + NAME + " migrate --db-url jdbc:postgresql://db:5432/app --db-user relay",
                "  " + NAME + " run --mode poll --db-url jdbc:postgresql://db:5432/app --db-user relay \\",
                "      --kafka-bootstrap kafka:9092",
                "  " + NAME + " status --config /etc/outbox-relay/relay.properties --json");
        CommandLine root = new CommandLine(spec);
        for (Command c : commands) {
            CommandSpec sub = CommandSpecs.command(c.name(), c.description(), c.spec(), c.examples());
            sub.version(spec.version());
            bySpec.put(sub, c);
            CommandLine subLine = new CommandLine(sub);
            for (Command child : c.children()) {
                CommandSpec leaf = CommandSpecs.command(child.name(), child.description(), child.spec(),
                        child.examples());
                leaf.version(spec.version());
                bySpec.put(leaf, child);
                subLine.addSubcommand(child.name(), new CommandLine(leaf));
            }
            root.addSubcommand(c.name(), subLine);
        }
        root.setOut(new PrintWriter(out, true, StandardCharsets.UTF_8));
        root.setErr(new PrintWriter(err, true, StandardCharsets.UTF_8));
        return root;
    }

    static String version() {
        return dev.outboxrelay.daemon.RelayDaemon.version();
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

        /** Subcommands of a group such as {@code dead-letters}; a group itself only shows help. */
        default List<Command> children() {
            return List.of();
        }
    }
}
