package dev.outboxrelay.testkit.contract;

import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;

/**
 * Where a relay under contract test runs: a fresh database with the outbox table already migrated, and the
 * Kafka broker. The relay should log in as {@link #relayUser()}, a password-authenticated non-superuser,
 * like in production.
 *
 * @param database the test database (superuser conveniences for the test itself)
 * @param table    the outbox table, {@code schema.table}
 * @param kafka    the broker
 */
public record RelayEnvironment(TestDatabase database, String table, TestKafka kafka) {

    /** {@code jdbc:postgresql://host:port/db}. */
    public String jdbcUrl() {
        return database.jdbcUrl();
    }

    /** The non-superuser role the relay logs in as. */
    public String relayUser() {
        return database.relayUser();
    }

    /** Its password. */
    public String relayPassword() {
        return database.relayPassword();
    }

    /** Kafka {@code host:port}. */
    public String kafkaBootstrap() {
        return kafka.bootstrapServers();
    }
}
