package dev.outboxrelay.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

class TestPostgresIT {

    @RegisterExtension
    static PostgresDatabaseExtension db = new PostgresDatabaseExtension();

    @Test
    void serverIsConfiguredForLogicalReplication() {
        TestDatabase database = db.database();
        assertThat(database.queryString("SHOW wal_level")).isEqualTo("logical");
        assertThat(database.queryLong("SELECT setting::bigint FROM pg_settings WHERE name = 'max_replication_slots'"))
                .isGreaterThanOrEqualTo(20);
        assertThat(database.server().version()).startsWith(database.queryString("SHOW server_version_num").substring(0, 2));
        assertThat(database.server().setting("wal_level")).isEqualTo("logical");
        assertThat(database.server().setting("synchronous_commit"))
                .isEqualTo(database.queryString("SHOW synchronous_commit"));
        assertThat(database.name()).startsWith("testpostgresit_");
        // startsWith: an external OUTBOX_TEST_JDBC_URL's query parameters are kept.
        assertThat(database.jdbcUrl()).startsWith("jdbc:postgresql://" + database.host() + ":" + database.port() + "/" + database.name());
    }

    @Test
    void logicalSlotWithPgoutputCanBeCreatedAndDroppedByTheRelayRole() throws SQLException {
        TestDatabase database = db.database();
        String slot = "slot_" + database.name();
        try (Connection c = database.connect(database.relayUser(), database.relayPassword());
             Statement st = c.createStatement()) {
            try (ResultSet rs = st.executeQuery("SELECT slot_name FROM pg_create_logical_replication_slot('" + slot + "', 'pgoutput')")) {
                assertThat(rs.next()).isTrue();
                assertThat(rs.getString(1)).isEqualTo(slot);
            }
            assertThat(database.queryString("SELECT plugin FROM pg_replication_slots WHERE slot_name = '" + slot + "'"))
                    .isEqualTo("pgoutput");
            st.execute("SELECT pg_drop_replication_slot('" + slot + "')");
        }
        assertThat(database.queryLong("SELECT count(*) FROM pg_replication_slots WHERE slot_name = '" + slot + "'")).isZero();
    }

    @Test
    void relayRoleNeedsItsPassword() throws SQLException {
        // An external server's pg_hba.conf may trust everyone; only a managed one is known to check, so use a
        // dedicated managed server when the shared one is external.
        boolean external = !db.database().server().managed();
        try (TestPostgres dedicated = external ? TestPostgres.start() : null) {
            TestDatabase database = external ? dedicated.createDatabase("pwcheck") : db.database();
            checkPassword(database);
        }
    }

    private static void checkPassword(TestDatabase database) throws SQLException {
        assertThatThrownBy(() -> database.connect(database.relayUser(), "wrong-secret").close())
                .isInstanceOf(SQLException.class)
                .satisfies(e -> assertThat(((SQLException) e).getSQLState()).isEqualTo("28P01"));
        assertThatThrownBy(() -> database.connect(database.relayUser(), null).close()).isInstanceOf(SQLException.class);
        try (Connection c = database.connect(database.relayUser(), database.relayPassword())) {
            assertThat(c.isValid(2)).isTrue();
        }
        assertThat(database.queryString("SELECT rolsuper::text || rolreplication::text FROM pg_roles WHERE rolname = 'relay'"))
                .isEqualTo("falsetrue");
    }

    @Test
    void relayRoleCanUseTablesTheSuperuserCreates() throws SQLException {
        TestDatabase database = db.database();
        database.execute("CREATE TABLE granted (id bigserial PRIMARY KEY, v text)");
        try (Connection c = database.connect(database.relayUser(), database.relayPassword());
             Statement st = c.createStatement()) {
            st.execute("INSERT INTO granted (v) VALUES ('x')");
            st.execute("CREATE TABLE own_table (id int)");
        }
        assertThat(database.queryLong("SELECT count(*) FROM granted")).isEqualTo(1);
    }

    @Test
    void databasesAreFreshAndDroppable() {
        TestPostgres server = TestPostgres.shared();
        TestDatabase a = server.createDatabase("Fresh-One");
        TestDatabase b = server.createDatabase("Fresh-One");
        assertThat(a.name()).isNotEqualTo(b.name()).startsWith("fresh_one_");
        a.execute("CREATE TABLE only_in_a (id int)");
        assertThat(b.queryLong("SELECT count(*) FROM pg_tables WHERE tablename = 'only_in_a'")).isZero();
        a.execute("SELECT pg_create_logical_replication_slot('pinning_" + a.name() + "', 'pgoutput')");
        a.drop();
        b.drop();
        TestDatabase probe = db.database();
        assertThat(probe.queryLong("SELECT count(*) FROM pg_database WHERE datname IN ('" + a.name() + "', '" + b.name() + "')"))
                .isZero();
        assertThat(probe.queryLong("SELECT count(*) FROM pg_replication_slots WHERE database = '" + a.name() + "'")).isZero();
    }

    @Test
    void dedicatedServerStartsWithOptionsAndCleansUpOnClose() throws Exception {
        Path dir;
        try (TestPostgres pg = TestPostgres.start(PostgresOptions.defaults().withSetting("max_connections", "42"))) {
            assertThat(pg.port()).isNotEqualTo(TestPostgres.shared().port());
            TestDatabase database = pg.createDatabase("dedicated");
            assertThat(database.queryLong("SHOW max_connections")).isEqualTo(42);
            assertThat(database.queryString("SHOW wal_level")).isEqualTo("logical");
            dir = Path.of(database.queryString("SHOW data_directory")).getParent();
            assertThat(dir).exists();
            if (OsCommands.isRoot()) {
                // PostgreSQL cannot run as root: it must be the unprivileged user that owns the files.
                assertThat(pg.osUser()).isNotEqualTo("root");
                assertThat(Files.getOwner(dir).getName()).isEqualTo(pg.osUser());
            }
        }
        assertThat(dir).doesNotExist();
    }

    @Nested
    class NestedClasses {
        @Test
        void shareTheOuterDatabase() {
            assertThat(db.database().name()).startsWith("testpostgresit_");
        }
    }

    @Test
    void binariesAreFound() {
        Path bin = TestPostgres.shared().bin();
        assertThat(bin.resolve("pg_ctl")).isExecutable();
        assertThat(bin.resolve("pg_recvlogical")).isExecutable();
    }
}
