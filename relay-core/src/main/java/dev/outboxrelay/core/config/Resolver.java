package dev.outboxrelay.core.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/** One resolution of a {@link ConfigSpec} against {@link ConfigSources}; collects every problem. */
final class Resolver {

    private final ConfigSpec spec;
    private final ConfigSources sources;
    private final List<String> problems = new ArrayList<>();
    private final Map<Option<?>, Object> values = new IdentityHashMap<>();
    private final Map<Option<?>, String> raw = new IdentityHashMap<>();
    private final Map<Option<?>, ValueSource> origin = new IdentityHashMap<>();
    private Map<String, String> fileProps = Map.of();
    private String fileName;

    Resolver(ConfigSpec spec, ConfigSources sources) {
        this.spec = spec;
        this.sources = sources;
    }

    RelayConfig resolve() {
        sources.flags().keySet().stream().filter(n -> spec.option(n).isEmpty())
                .forEach(n -> problems.add("--" + n + ": unknown option"));
        sources.connectorConfig().keySet().stream().filter(n -> spec.option(n).isEmpty())
                .forEach(n -> problems.add(n + ": unknown option"));
        sources.passthroughFlags().forEach((prefix, props) -> {
            if (spec.passthrough(prefix).isEmpty()) {
                props.keySet().forEach(k -> problems.add("--" + prefix + "." + k + ": unknown option"));
            }
        });
        loadConfigFile();
        for (Option<?> option : spec.options()) {
            resolveOption(option);
        }
        Map<String, Map<String, String>> passthrough = new LinkedHashMap<>();
        Map<String, ValueSource> passthroughOrigin = new LinkedHashMap<>();
        for (Passthrough p : spec.passthroughs()) {
            passthrough.put(p.prefix(), resolvePassthrough(p, passthroughOrigin));
        }
        RelayConfig config = new RelayConfig(spec, values, raw, origin, passthrough, passthroughOrigin);
        for (ConfigCheck check : spec.checks()) {
            check.check(config, problems);
        }
        if (!problems.isEmpty()) {
            throw new ConfigException(problems);
        }
        return config;
    }

    private void loadConfigFile() {
        if (spec.option(ConfigSpec.CONFIG.name()).orElse(null) != ConfigSpec.CONFIG) {
            return;
        }
        resolveOption(ConfigSpec.CONFIG);
        Object file = values.get(ConfigSpec.CONFIG);
        if (!(file instanceof Path path)) {
            return;
        }
        fileName = path.toString();
        Map<String, String> props = readProperties(ConfigSpec.CONFIG, path);
        for (String key : props.keySet()) {
            int dot = key.indexOf('.');
            boolean known = dot > 0 ? spec.passthrough(key.substring(0, dot)).isPresent()
                    : spec.option(key).isPresent() && spec.option(key).get() != ConfigSpec.CONFIG;
            if (!known && !spec.tolerates(dot > 0 ? key.substring(0, dot) : key) && !spec.tolerates(key)) {
                problems.add("config file " + fileName + ": unknown option '" + key + "'");
            }
        }
        fileProps = props;
    }

    private Map<String, String> readProperties(Option<?> option, Path path) {
        Properties props = new Properties();
        try (Reader in = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            props.load(in);
        } catch (IOException | IllegalArgumentException e) {
            problems.add(option.flag() + ": cannot read '" + path + "': " + e.getMessage());
            return Map.of();
        }
        Map<String, String> result = new TreeMap<>();
        props.stringPropertyNames().forEach(k -> result.put(k, props.getProperty(k).strip()));
        return result;
    }

    private <T> void resolveOption(Option<T> option) {
        if (origin.containsKey(option)) {
            return; // --config is resolved first
        }
        String flag = sources.flags().get(option.name());
        String env = sources.environment().get(option.envVar());
        String inFile = fileProps.get(option.name());
        if (option.environmentOnly()) {
            if (flag != null) {
                problems.add(option.flag() + ": not accepted on the command line, where other users can see it; "
                        + option.environmentOnlyHint());
            }
            if (inFile != null) {
                problems.add("config file " + fileName + ": '" + option.name() + "' is not accepted in a file; "
                        + option.environmentOnlyHint());
            }
            flag = null;
            inFile = null;
        }
        String text;
        ValueSource source;
        String where;
        String connector = sources.connectorConfig().get(option.name());
        if (connector != null) {
            text = connector;
            source = ValueSource.CONNECTOR_CONFIG;
            where = option.name();
        } else if (flag != null) {
            text = flag;
            source = ValueSource.COMMAND_LINE;
            where = option.flag();
        } else if (env != null) {
            text = env;
            source = ValueSource.ENVIRONMENT;
            where = option.envVar();
        } else if (inFile != null) {
            text = inFile;
            source = ValueSource.CONFIG_FILE;
            where = option.name() + " (config file " + fileName + ")";
        } else if (option.defaultValue() != null) {
            text = option.defaultValue();
            source = ValueSource.DEFAULT;
            where = option.flag();
        } else {
            if (option.required() && spec.enforcesRequired()) {
                problems.add(option.displayName() + ": required"
                        + (option.environmentOnly() ? "" : " (or set " + option.envVar() + ")"));
            }
            return;
        }
        origin.put(option, source);
        raw.put(option, text);
        T value;
        try {
            value = option.type().parse(text);
        } catch (IllegalArgumentException e) {
            problems.add(where + ": " + (option.secret() ? "invalid value" : e.getMessage()));
            return;
        }
        String problem = option.validator().problem(value);
        if (problem != null) {
            problems.add(where + ": " + problem + (option.secret() ? "" : ", was " + shown(option.shown(text))));
            return;
        }
        values.put(option, value);
    }

    private static String shown(String text) {
        return text.matches("-?\\d+") ? text : "'" + text + "'";
    }

    private Map<String, String> resolvePassthrough(Passthrough p, Map<String, ValueSource> originOut) {
        Map<String, String> result = new TreeMap<>();
        String dotted = p.prefix() + ".";
        if (p.file() != null && values.get(p.file()) instanceof Path path) {
            readProperties(p.file(), path).forEach((k, v) -> {
                result.put(k, v);
                originOut.put(dotted + k, ValueSource.PASSTHROUGH_FILE);
            });
        }
        fileProps.forEach((k, v) -> {
            if (k.startsWith(dotted) && k.length() > dotted.length()) {
                result.put(k.substring(dotted.length()), v);
                originOut.put(k, ValueSource.CONFIG_FILE);
            }
        });
        environmentOf(p).forEach((k, v) -> {
            result.put(k, v);
            originOut.put(dotted + k, ValueSource.ENVIRONMENT);
        });
        sources.passthroughFlags().getOrDefault(p.prefix(), Map.of()).forEach((k, v) -> {
            result.put(k, v);
            originOut.put(dotted + k, ValueSource.COMMAND_LINE);
        });
        return result;
    }

    /**
     * {@code RELAY_KAFKA_LINGER_MS=5} is {@code kafka.linger.ms=5}: the property in upper case, dots as
     * underscores. Variables that belong to a declared option ({@code RELAY_KAFKA_BOOTSTRAP}) are not properties.
     */
    private Map<String, String> environmentOf(Passthrough p) {
        String envPrefix = p.envPrefix();
        Map<String, String> result = new TreeMap<>();
        sources.environment().forEach((name, value) -> {
            if (name.startsWith(envPrefix) && name.length() > envPrefix.length()
                    && spec.options().stream().noneMatch(o -> o.envVar().equals(name))) {
                result.put(Passthrough.propertyOf(name.substring(envPrefix.length())), value);
            }
        });
        return result;
    }
}
