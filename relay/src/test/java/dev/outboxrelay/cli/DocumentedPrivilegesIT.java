package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * docs/schema.md's "Privileges" are exactly enough: roles created by the doc's own SQL run {@code migrate} (which,
 * without {@code CREATE} on the database, fails naming the step and the grant) and the relay in both modes.
 */
class DocumentedPrivilegesIT {

    private static final Pattern SQL_BLOCK = Pattern.compile("```sql\\n(.*?)```", Pattern.DOTALL);
    private static final String PASSWORD = "doc-secret";

    private TestDatabase database;
    private String owner;
    private String relayRole;

    @BeforeEach
    void setUp() {
        database = TestPostgres.shared().createDatabase("privileges");
        String suffix = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xFFFFFF));
        owner = "doc_owner_" + suffix;
        relayRole = "doc_relay_" + suffix;
    }

    @AfterEach
    void tearDown() throws Exception {
        database.drop();
        try (Connection c = database.server().connectAdmin("postgres"); Statement st = c.createStatement()) {
            st.execute("DROP ROLE IF EXISTS " + relayRole);
            st.execute("DROP ROLE IF EXISTS " + owner);
        }
    }

    @Test
    void migrateAndBothModesRunWithExactlyTheDocumentedGrants() throws Exception {
        List<String> blocks = privilegeBlocks();
        assertThat(blocks).hasSize(3);
        // First without CREATE on the database: migrate must say which step failed and what it needs.
        runAsSuperuser(blocks.get(0).replace("GRANT CONNECT, CREATE ON DATABASE", "GRANT CONNECT ON DATABASE"));
        CliRun refused = migrate();
        assertThat(refused.exitCode()).isEqualTo(1);
        assertThat(refused.err()).contains("migration 1 (", "of outbox:public.outbox failed: permission denied for database "
                + database.name(), "migrate needs CONNECT and CREATE on the database");
        runAsSuperuser("GRANT CREATE ON DATABASE " + database.name() + " TO " + owner); // the rest of the doc's grant
        CliRun migrated = migrate();
        assertThat(migrated.exitCode()).as(migrated.err()).isZero();
        runAsSuperuser(blocks.get(1));
        List<String> ownerGrants = statements(blocks.get(2));
        try (Connection c = DriverManager.getConnection(database.jdbcUrl(), owner, PASSWORD);
             Statement st = c.createStatement()) {
            st.execute(ownerGrants.get(0));
            // Without the offsets grant CDC refuses to start, naming the grant (instead of retrying forever).
            CliRun refusedCdc = CliRun.of(Map.of("RELAY_DB_PASSWORD", PASSWORD), "run", "--mode", "cdc", "--db-url",
                    database.jdbcUrl(), "--db-user", relayRole, "--kafka-bootstrap",
                    TestKafka.shared().bootstrapServers(), "--http-port", "0", "--slot-name",
                    "privileges_refused_" + database.name());
            assertThat(refusedCdc.exitCode()).isEqualTo(1);
            assertThat(refusedCdc.err()).contains("lacks SELECT, INSERT, UPDATE, DELETE on public.outbox_cdc_offsets",
                    "GRANT SELECT, INSERT, UPDATE, DELETE ON \"public\".\"outbox_cdc_offsets\" TO \"" + relayRole + "\"");
            for (String statement : ownerGrants.subList(1, ownerGrants.size())) {
                st.execute(statement);
            }
        }

        TestKafka kafka = TestKafka.shared();
        String topic = "privileges-it." + database.name();
        kafka.createTopic(topic, 1);
        OutboxWriter writer = new OutboxWriter(database, "public.outbox");
        for (String mode : List.of("poll", "cdc")) {
            try (PublishingRelay started = PublishingRelay.of("privileges-" + mode, mode).on(database).as(relayRole)
                    .env(Map.of("RELAY_DB_PASSWORD", PASSWORD)).kafka(kafka).args("--topic-template", topic).start()) {
                RelayProcess relay = started.relay;
                List<OutboxWriter.Row> rows = new ArrayList<>();
                for (int i = 0; i < 50; i++) {
                    rows.add(OutboxWriter.Row.of("Order", mode + "-" + (i % 5), i));
                }
                List<String> ids = writer.insert(rows);
                TopicReader.of(kafka).readUntilIds(topic, new HashSet<>(ids), Duration.ofSeconds(60));
                await().atMost(Duration.ofSeconds(30)).until(() -> writer.unsent() == 0);
                assertThat(relay.terminate(Duration.ofSeconds(45))).as(mode + " stops cleanly").isZero();
                assertThat(relay.logText()).as(mode).doesNotContain("permission denied");
            }
        }
    }

    private CliRun migrate() {
        return CliRun.of(Map.of("RELAY_DB_PASSWORD", PASSWORD), "migrate", "--db-url", database.jdbcUrl(),
                "--db-user", owner);
    }

    /** The SQL blocks of the "Privileges" section, with this test's database and role names. */
    private List<String> privilegeBlocks() throws Exception {
        String doc = Files.readString(Path.of("..", "docs", "schema.md"), StandardCharsets.UTF_8);
        String section = doc.substring(doc.indexOf("## Privileges"));
        int next = section.indexOf("\n## ", 5);
        section = next < 0 ? section : section.substring(0, next);
        List<String> blocks = new ArrayList<>();
        Matcher m = SQL_BLOCK.matcher(section);
        while (m.find()) {
            blocks.add(m.group(1).replaceAll("\\bapp\\b", database.name()).replaceAll("\\boutbox_owner\\b", owner)
                    .replaceAll("\\brelay\\b", relayRole).replace("'...'", "'" + PASSWORD + "'"));
        }
        return blocks;
    }

    private void runAsSuperuser(String block) throws SQLException {
        try (Connection c = database.connect(); Statement st = c.createStatement()) {
            for (String statement : statements(block)) {
                st.execute(statement);
            }
        }
    }

    private static List<String> statements(String block) {
        List<String> statements = new ArrayList<>();
        for (String s : block.split(";")) {
            String sql = s.lines().filter(l -> !l.strip().startsWith("--")).reduce("", (a, b) -> a + " " + b).strip();
            if (!sql.isEmpty()) {
                statements.add(sql);
            }
        }
        return statements;
    }
}
