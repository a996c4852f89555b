package dev.outboxrelay.inbox;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Invalid arguments fail before any SQL, with messages that say what to fix. */
class InboxArgumentsTest {

    private final Inbox inbox = Inbox.forTable("inbox", "billing");

    @Test
    void builderDefaults() {
        Inbox built = Inbox.builder().consumer("billing").build();
        assertThat(built.table()).isEqualTo("public.inbox");
        assertThat(built.ttl()).isEqualTo(Duration.ofDays(14));
        assertThat(built.consumer()).isEqualTo("billing");
        assertThat(built).hasToString("Inbox[public.inbox, consumer=billing, ttl=PT336H]");
    }

    @Test
    void consumerNameIsRequiredAndChecked() {
        assertThatThrownBy(() -> Inbox.builder().build())
                .isInstanceOf(IllegalStateException.class)
                .hasMessage("an inbox needs a consumer name: call consumer(...) before build()");
        assertThatThrownBy(() -> Inbox.forTable("inbox", "  "))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("consumer name must not be blank");
        assertThatThrownBy(() -> Inbox.forTable("inbox", "c".repeat(201)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("consumer name is 201 characters long; at most 200 are allowed");
    }

    @Test
    void tableNameIsValidated() {
        assertThatThrownBy(() -> Inbox.forTable("a.b.c", "billing"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'a.b.c' is not a valid table name: expected [schema.]table");
        assertThatThrownBy(() -> Inbox.migrator("inbox; drop table x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("'inbox; drop table x' is not a valid table name");
    }

    @Test
    void ttlMustBeAtLeastOneSecond() {
        assertThatThrownBy(() -> Inbox.builder().consumer("billing").ttl(Duration.ofMillis(999)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("inbox ttl must be at least 1 second, was PT0.999S;"
                        + " it must exceed the longest redelivery window");
    }

    @Test
    void eventIdIsChecked() {
        Connection none = null;
        assertThatThrownBy(() -> inbox.process(none, null, c -> null))
                .isInstanceOf(NullPointerException.class).hasMessage("connection");
        assertThatThrownBy(() -> inbox.process(InboxArgumentsTest.unusedDataSource(), null, c -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("event id is missing (null): without it the event cannot be deduplicated;"
                        + " was the record produced by outbox-relay (Kafka header 'id')?");
        assertThatThrownBy(() -> inbox.process(InboxArgumentsTest.unusedDataSource(), " ", c -> null))
                .isInstanceOf(IllegalArgumentException.class).hasMessage("event id must not be blank");
        assertThatThrownBy(() -> inbox.process(InboxArgumentsTest.unusedDataSource(), "x".repeat(256), c -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("event id is 256 characters long; at most 255 are allowed");
    }

    @Test
    void purgeBatchSizeMustBePositive() {
        assertThatThrownBy(() -> inbox.purgeExpired(InboxArgumentsTest.unusedDataSource(), 0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("purge batch size must be positive, was 0");
    }

    @Test
    void resultCodecsRoundTrip() {
        assertThat(ResultCodec.utf8().decode(ResultCodec.utf8().encode("grüß"))).isEqualTo("grüß");
        assertThat(ResultCodec.bytes().decode(new byte[] {1, 2})).containsExactly(1, 2);
    }

    /** A DataSource that fails the test if anything asks it for a connection: validation comes first. */
    static javax.sql.DataSource unusedDataSource() {
        return new org.postgresql.ds.PGSimpleDataSource() {
            private static final long serialVersionUID = 1L;

            @Override
            public Connection getConnection() {
                throw new AssertionError("validation must fail before a connection is taken");
            }
        };
    }
}
