package dev.outboxrelay.core.config;

/** Where an effective value came from, highest precedence first; shown in the config dump. */
public enum ValueSource {
    /** {@code --option value} on the command line. */
    COMMAND_LINE("command line"),
    /**
     * A key of a Kafka Connect connector's configuration (the connector runs the same options; secret ones arrive
     * here too, typically resolved by one of the worker's config providers).
     */
    CONNECTOR_CONFIG("connector config"),
    /** {@code RELAY_OPTION} in the environment. */
    ENVIRONMENT("environment"),
    /** A key in the {@code --config} properties file. */
    CONFIG_FILE("config file"),
    /** A passthrough properties file such as {@code --kafka-config-file}. */
    PASSTHROUGH_FILE("passthrough file"),
    /** The declared default. */
    DEFAULT("default");

    private final String label;

    ValueSource(String label) {
        this.label = label;
    }

    /** Lower-case words for the dump. */
    public String label() {
        return label;
    }
}
