package dev.outboxrelay.core.config;

import dev.outboxrelay.core.db.JdbcUrls;
import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.schema.TableLayout;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** Options naming the PostgreSQL database and outbox table; used by {@code migrate} and both sources. */
public final class DatabaseOptions {

    public static final Option<String> DB_URL = Option.string("db-url")
            .required()
            .validate(url -> url.startsWith("jdbc:postgresql:") ? null
                    : "must be a PostgreSQL JDBC URL such as jdbc:postgresql://db.example.com:5432/app")
            .shownAs(JdbcUrls::masked)
            .doc("PostgreSQL JDBC URL; every driver setting in it (sslmode, sslrootcert, sslcert, sslkey, several hosts,"
                    + " targetServerType, connectTimeout...) applies in both modes. Passwords in the URL are shown"
                    + " masked and refused on the command line.")
            .example("jdbc:postgresql://db.example.com:5432/app?sslmode=verify-full")
            .build();

    public static final Option<String> DB_USER = Option.string("db-user")
            .required()
            .validate(Validator.notBlank())
            .doc("Database role the relay logs in as.")
            .example("relay")
            .build();

    public static final Option<Password> DB_PASSWORD = Option.password("db-password")
            .environmentOnly("set RELAY_DB_PASSWORD or use --db-password-file FILE")
            .doc("Database password; environment only (never a flag), or use --db-password-file.")
            .example("(secret)")
            .build();

    public static final Option<Path> DB_PASSWORD_FILE = Option.path("db-password-file")
            .validate(Validator.readableFile())
            .doc("File holding the database password (e.g. a mounted secret); a trailing newline is ignored.")
            .example("/run/secrets/relay-db-password")
            .build();

    public static final Option<OutboxTable> TABLE = Option.builder("table", OptionType.custom("schema.table", OutboxTable::parse))
            .defaultValue(OutboxTable.DEFAULT.toString())
            .validate(t -> t.table().length() <= OutboxTable.MAX_TABLE_NAME ? null
                    : "the table name is " + t.table().length() + " characters; the relay derives names such as "
                    + t.table() + "_relay_notify from it, which PostgreSQL limits to 63: use at most "
                    + OutboxTable.MAX_TABLE_NAME)
            .doc("The outbox table, [schema.]table (the table name at most 50 characters).")
            .example("orders.outbox")
            .build();

    public static final Option<String> PUBLICATION = Option.builder("publication",
                    OptionType.custom("name", DatabaseOptions::publication))
            .defaultValue(OutboxSchema.DEFAULT_PUBLICATION)
            .doc("PostgreSQL publication over the outbox table, created by migrate and read by the CDC source.")
            .example("orders_outbox_pub")
            .build();

    /** The column layouts {@code --table-format} names. */
    public enum TableFormat {
        /** {@link TableLayout#RELAY}. */
        RELAY(TableLayout.RELAY),
        /** {@link TableLayout#DEBEZIUM}. */
        DEBEZIUM(TableLayout.DEBEZIUM);

        private final TableLayout layout;

        TableFormat(TableLayout layout) {
            this.layout = layout;
        }
    }

    public static final Option<TableFormat> TABLE_FORMAT = Option.enumeration("table-format", TableFormat.class)
            .defaultValue("relay")
            .doc("The outbox table's columns: relay (id, aggregate_type, aggregate_id, event_type, payload, headers,"
                    + " created_at) or debezium (Debezium's outbox table: id, aggregatetype, aggregateid, type,"
                    + " payload; adopt it with migrate --adopt). --column maps the rest.")
            .example("debezium")
            .build();

    public static final Option<String> COLUMNS = Option.builder("column",
                    OptionType.custom("role=column,...", DatabaseOptions::columns))
            .defaultValue("")
            .doc("Column names that differ from --table-format's: role=column, comma-separated; roles id,"
                    + " aggregate-type, aggregate-id, event-type, payload, headers (empty: none), created-at.")
            .example("aggregate-id=order_id,event-type=kind")
            .build();

    /** How to reach the database: URL, user and the two password sources. */
    public static final OptionSet CONNECTION = OptionSet.builder("Database")
            .add(DB_URL).add(DB_USER).add(DB_PASSWORD).add(DB_PASSWORD_FILE).add(TABLE).add(TABLE_FORMAT).add(COLUMNS)
            .check(DatabaseOptions::onePasswordSource)
            .check(DatabaseOptions::noPasswordInUrlFlag)
            .build();

    private DatabaseOptions() {
    }

    private static String columns(String mapping) {
        TableLayout.RELAY.with(mapping); // validates; the message names the entry
        return mapping;
    }

    /** The outbox table of a validated config, with the layout {@code --table-format} and {@code --column} give. */
    public static OutboxTable table(RelayConfig config) {
        return config.get(TABLE).withLayout(layout(config));
    }

    /**
     * The layout {@code --table-format} and {@code --column} give (the relay's where they are not set or bad), also
     * reading the other columns that {@code --topic-template} ({@code ${column.<name>}}) and, with the Debezium
     * format, {@code --debezium-fields} name.
     */
    public static TableLayout layout(RelayConfig config) {
        TableLayout layout;
        try {
            layout = config.find(TABLE_FORMAT).orElse(TableFormat.RELAY).layout.with(config.find(COLUMNS).orElse(""));
        } catch (IllegalArgumentException e) {
            return TableLayout.RELAY; // reported as the option's own problem
        }
        try {
            return layout.withExtras(FormatOptions.namedColumns(config));
        } catch (IllegalArgumentException e) {
            return layout; // reported by FormatOptions' check
        }
    }

    private static String publication(String name) {
        OutboxSchema.plan(OutboxTable.DEFAULT, name); // validates the name, message names the value
        return name;
    }

    private static void onePasswordSource(RelayConfig config, List<String> problems) {
        if (config.source(DB_PASSWORD).isPresent() && config.source(DB_PASSWORD_FILE).isPresent()) {
            problems.add(DB_PASSWORD_FILE.flag() + ": cannot be combined with " + DB_PASSWORD.envVar()
                    + "; use one of them");
        }
    }

    private static void noPasswordInUrlFlag(RelayConfig config, List<String> problems) {
        ValueSource source = config.source(DB_URL).orElse(null);
        if (source == ValueSource.CONNECTOR_CONFIG && config.find(DB_URL).isPresent()) {
            // Connect shows a connector's plain keys to anyone who may read its config over REST.
            JdbcUrls.secretParameters(config.get(DB_URL)).stream().findFirst().ifPresent(n -> problems.add(
                    DB_URL.name() + ": '" + n + "' in the URL is not accepted, Connect shows the URL to everyone who"
                            + " can read the connector's configuration; use " + DB_PASSWORD.name()
                            + " (a PASSWORD) and the worker's config providers"));
            return;
        }
        if (source != ValueSource.COMMAND_LINE || config.find(DB_URL).isEmpty()) {
            return;
        }
        List<String> secrets = JdbcUrls.secretParameters(config.get(DB_URL));
        if (secrets.stream().anyMatch(n -> n.equalsIgnoreCase("password"))) {
            problems.add(DB_URL.flag() + ": a password in the URL is not accepted on the command line, where other"
                    + " users can see it; set RELAY_DB_PASSWORD or use --db-password-file");
        }
        secrets.stream().filter(n -> !n.equalsIgnoreCase("password")).findFirst().ifPresent(n -> problems.add(DB_URL.flag()
                + ": '" + n + "' in the URL is not accepted on the command line, where other users can see it;"
                + " give the URL in RELAY_DB_URL or the --config file"));
    }

    /**
     * The password from {@code RELAY_DB_PASSWORD} or {@code --db-password-file}, empty when neither is set
     * (e.g. trust or certificate authentication). The file is read now, so a rotated secret is picked up on
     * the next connection.
     */
    public static Optional<Password> password(RelayConfig config) {
        Optional<Password> direct = config.find(DB_PASSWORD);
        if (direct.isPresent()) {
            return direct;
        }
        return config.find(DB_PASSWORD_FILE).map(DatabaseOptions::readPassword);
    }

    private static Password readPassword(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8);
            return Password.of(text.replaceAll("\\R+$", ""));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + DB_PASSWORD_FILE.flag() + " " + file, e);
        }
    }
}
