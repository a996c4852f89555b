package dev.outboxrelay.cdc;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.config.Password;
import dev.outboxrelay.core.db.ConnectionFactory;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.poll.PollSettings;
import dev.outboxrelay.poll.PollingSource;
import dev.outboxrelay.schema.OutboxTable;
import dev.outboxrelay.testkit.TestDatabase;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** A poll source on the database of a CDC test, for switching modes and comparing the two sources' output. */
final class PollBesideCdc {

    private PollBesideCdc() {
    }

    static PollingSource startPoll(TestDatabase database, String table, String bootstrap,
                                   Map<String, String> options) {
        return startPoll(database, table, bootstrap, CdcRelays.router(options));
    }

    static PollingSource startPoll(TestDatabase database, String table, String bootstrap, EventRouter router) {
        return startPoll(database, table, bootstrap, router, OutboxTable.parse(table));
    }

    /** A poll source on {@code outbox}, a table that may be laid out otherwise. */
    static PollingSource startPoll(TestDatabase database, String table, String bootstrap, EventRouter router,
                                   OutboxTable outbox) {
        PollingSource source = PollingSource.create(
                PollSettings.builder().table(outbox)
                        .pollInterval(Duration.ofMillis(200)).standbyInterval(Duration.ofMillis(200))
                        .maxBackoff(Duration.ofSeconds(1)).relayName("poll-beside-cdc").build(),
                ConnectionFactory.jdbc(database.jdbcUrl(), database.relayUser(),
                        () -> Optional.of(Password.of(database.relayPassword()))),
                router, ProducerSettings.of(bootstrap, Map.of()), RelayListener.none());
        source.start();
        return source;
    }
}
