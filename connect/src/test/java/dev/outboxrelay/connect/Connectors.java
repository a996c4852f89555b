package dev.outboxrelay.connect;

import dev.outboxrelay.schema.OutboxSchema;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.TestDatabase;
import java.nio.file.Path;
import java.sql.Connection;
import java.util.LinkedHashMap;
import java.util.Map;

/** Test helpers: a migrated database and the connector's configuration for the ITs. */
final class Connectors {

    /** Built in package, before the ITs: {@code plugin.path} for the workers. */
    static final Path PLUGIN_PATH = Path.of("target", "plugin");

    private Connectors() {
    }

    static TestDatabase migrated(TestDatabase database) throws Exception {
        try (Connection c = database.connect()) {
            OutboxSchema.migrator(OutboxTable.parse("public.outbox"), OutboxSchema.DEFAULT_PUBLICATION).migrate(c);
        }
        return database;
    }

    /** The connector on {@code database}, publishing to {@code <prefix>.<aggregate type>}, with fast timers. */
    static Map<String, String> config(TestDatabase database, String prefix, int tasks) {
        Map<String, String> c = new LinkedHashMap<>();
        c.put("connector.class", OutboxSourceConnector.class.getName());
        c.put("tasks.max", Integer.toString(tasks));
        c.put("key.converter", OutboxSourceConnector.BYTE_ARRAY);
        c.put("value.converter", OutboxSourceConnector.BYTE_ARRAY);
        c.put("header.converter", OutboxSourceConnector.BYTE_ARRAY);
        c.put("errors.tolerance", "all");
        c.put("db-url", database.jdbcUrl());
        c.put("db-user", database.relayUser());
        c.put("db-password", database.relayPassword());
        c.put("topic-template", prefix + ".${aggregateType}");
        c.put("poll-interval", "200ms");
        c.put("standby-interval", "500ms");
        return c;
    }
}
