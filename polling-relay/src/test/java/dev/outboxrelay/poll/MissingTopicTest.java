package dev.outboxrelay.poll;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.core.delivery.TopicLimits;
import dev.outboxrelay.testkit.DeliveryReport;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.testkit.TopicReader;
import dev.outboxrelay.testkit.contract.OutboxWriter;
import dev.outboxrelay.testkit.contract.OutboxWriter.Row;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * A topic that does not exist on a cluster that does not create topics on first use (the usual production
 * setting). Before, the producer blocked 60 s on the first such row and the source then treated it as a Kafka
 * outage, holding back every topic. Now the rows of the missing topic wait, with their keys, other topics flow,
 * and once the topic is created its events follow, in order.
 */
class MissingTopicTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @Test
    void eventsForAMissingTopicWaitWhileOtherTopicsFlow() throws Exception {
        ListAppender<ILoggingEvent> logs = new ListAppender<>();
        logs.start();
        Logger log = (Logger) LoggerFactory.getLogger(TopicLimits.class);
        log.addAppender(logs);
        TestDatabase db = TestPostgres.shared().createDatabase("missingtopic");
        try (TestKafka kafka = TestKafka.start(Map.of("auto.create.topics.enable", "false"))) {
            kafka.createTopic("mt.Present", 1);
            PollingRelays.migrate(db, "public.outbox");
            OutboxWriter writer = new OutboxWriter(db, "public.outbox");
            List<String> missing = new ArrayList<>(writer.insert(List.of(Row.of("Missing", "m", 1))));
            List<String> present = new ArrayList<>(writer.insert(List.of(Row.of("Present", "p", 1))));
            missing.addAll(writer.insert(List.of(Row.of("Missing", "m", 2))));
            present.addAll(writer.insert(List.of(Row.of("Present", "p", 2))));
            PollingSource source = PollingRelays.start(PollingRelays.settings("public.outbox", Map.of()).build(), db,
                    kafka.bootstrapServers(), Map.of("topic-template", "mt.${aggregateType}"), Map.of(),
                    RelayListener.none());
            try {
                DeliveryReport flowing = DeliveryReport.of(TopicReader.of(kafka)
                        .readUntilIds("mt.Present", new HashSet<>(present), WAIT), present);
                assertThat(flowing.atLeastOnceInOrder()).as("%s", flowing).isTrue();
                assertThat(db.queryLong("SELECT count(*) FROM outbox WHERE aggregate_type = 'Missing'"
                        + " AND sent_at IS NULL AND attempts = 0")).as("waiting, no attempt counted").isEqualTo(2);
                assertThat(logs.list).filteredOn(e -> e.getLevel() == Level.WARN)
                        .extracting(ILoggingEvent::getFormattedMessage).containsExactly("Topic mt.Missing does not"
                                + " exist and the cluster does not create topics on first use: events routed to it"
                                + " wait, and hold back later events of their keys, until it is created");

                kafka.createTopic("mt.Missing", 1);
                DeliveryReport released = DeliveryReport.of(TopicReader.of(kafka)
                        .readUntilIds("mt.Missing", new HashSet<>(missing), WAIT), missing);
                assertThat(released.atLeastOnceInOrder()).as("%s", released).isTrue();
                await().atMost(WAIT).until(() -> writer.unsent() == 0);
            } finally {
                source.close();
            }
        } finally {
            log.detachAppender(logs);
            db.drop();
        }
    }
}
