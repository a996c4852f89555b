package dev.outboxrelay.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashSet;
import java.util.Set;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.extension.RegisterExtension;

/** Registered on an instance field, the extension gives every test method its own database. */
class PostgresDatabaseExtensionIT {

    private static final Set<String> NAMES = new HashSet<>();

    @RegisterExtension
    final PostgresDatabaseExtension db = new PostgresDatabaseExtension();

    @RepeatedTest(2)
    void eachMethodGetsAFreshDatabase() {
        assertThat(NAMES.add(db.database().name())).isTrue();
        assertThat(db.database().queryLong("SELECT count(*) FROM pg_tables WHERE schemaname = 'public'")).isZero();
        db.database().execute("CREATE TABLE leftover (id int)");
    }

    @AfterAll
    static void databasesWereDropped() {
        TestDatabase probe = TestPostgres.shared().createDatabase("probe");
        try {
            for (String name : NAMES) {
                assertThat(probe.queryLong("SELECT count(*) FROM pg_database WHERE datname = '" + name + "'")).isZero();
            }
        } finally {
            probe.drop();
        }
    }
}
