package dev.outboxrelay.poll;

import dev.outboxrelay.core.RelayListener;
import dev.outboxrelay.testkit.TestDatabase;
import dev.outboxrelay.testkit.TestKafka;
import dev.outboxrelay.testkit.TestPostgres;
import dev.outboxrelay.core.acknowledge.Acknowledger;
import dev.outboxrelay.core.event.OutboxEvent;
import dev.outboxrelay.core.event.OutboxEvents;
import dev.outboxrelay.core.publish.EventPublisher;
import dev.outboxrelay.core.publish.ProducerSettings;
import dev.outboxrelay.core.route.EventRouter;
import dev.outboxrelay.schema.OutboxTable;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.OffsetDateTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;

/**
 * Rough local throughput check, run by hand (not a test: no timed assertions in the build):
 * {@code java -cp … dev.outboxrelay.poll.PollThroughputProbe [rows] [batchSize] [pipelineDepth]}; depth 0 runs the
 * simple baseline poller instead.
 * Prefills the outbox, starts the source and reports events per second until every row is marked.
 */
public final class PollThroughputProbe {

    private PollThroughputProbe() {
    }

    public static void main(String[] args) throws Exception {
        int rows = args.length > 0 ? Integer.parseInt(args[0]) : 200_000;
        int batch = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
        int depth = args.length > 2 ? Integer.parseInt(args[2]) : 2;
        TestDatabase db = TestPostgres.shared().createDatabase("probe");
        PollingRelays.migrate(db, "public.outbox");
        TestKafka kafka = TestKafka.shared();
        kafka.createTopic("probe.Bench", 6);
        db.execute("INSERT INTO outbox (id, aggregate_type, aggregate_id, event_type, payload, headers)"
                + " SELECT gen_random_uuid(), 'Bench', 'key-' || (g % 1000), 'Happened',"
                + " jsonb_build_object('n', g, 'pad', repeat('x', 200)), '{\"traceparent\": \"00-abc-01\"}'::jsonb"
                + " FROM generate_series(1, " + rows + ") g");
        db.execute("VACUUM ANALYZE outbox");
        PollSettings settings = PollingRelays.settings("public.outbox", Map.of()).batchSize(batch).pipelineDepth(Math.max(1, depth))
                .build();
        long start = System.nanoTime();
        if (depth == 0) {
            baseline(db, kafka.bootstrapServers(), batch);
        } else {
            PollingSource source = PollingRelays.start(settings, db, kafka.bootstrapServers(),
                    Map.of("topic-template", "probe.${aggregateType}"), Map.of(), RelayListener.none());
            while (db.queryLong("SELECT count(*) FROM outbox WHERE sent_at IS NULL") > 0) {
                Thread.sleep(50);
            }
            source.close();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        System.out.printf("PROBE %s rows=%d batch=%d depth=%d: %.1f s, %.0f events/s%n",
                depth == 0 ? "baseline" : "poll-source", rows, batch, depth, seconds, rows / seconds);
        db.drop();
        System.exit(0);
    }

    /** The simple batched poller the source is compared with: claim, send all, await, one UPDATE, commit. */
    private static void baseline(TestDatabase db, String bootstrap, int batch) throws Exception {
        EventRouter router = EventRouter.topicTemplate("probe.${aggregateType}");
        try (EventPublisher publisher = EventPublisher.kafka(ProducerSettings.of(bootstrap, Map.of()));
             Connection c = PollingRelays.connections(db).connect()) {
            c.setAutoCommit(false);
            Acknowledger ack = Acknowledger.forTable(OutboxTable.DEFAULT, Acknowledger.OnPublish.MARK);
            while (true) {
                List<UUID> ids = new ArrayList<>();
                List<CompletableFuture<?>> acks = new ArrayList<>();
                try (PreparedStatement ps = c.prepareStatement("SELECT id, aggregate_type, aggregate_id, event_type,"
                        + " payload::text, headers::text, created_at FROM outbox WHERE sent_at IS NULL"
                        + " ORDER BY seq LIMIT ? FOR UPDATE SKIP LOCKED")) {
                    ps.setInt(1, batch);
                    try (ResultSet rs = ps.executeQuery()) {
                        while (rs.next()) {
                            UUID id = rs.getObject(1, UUID.class);
                            OutboxEvent e = OutboxEvents.fromRow(id, rs.getString(2), rs.getString(3), rs.getString(4),
                                    rs.getString(5), rs.getString(6), rs.getObject(7, OffsetDateTime.class).toInstant());
                            acks.add(publisher.publish(router.route(e)));
                            ids.add(id);
                        }
                    }
                }
                if (ids.isEmpty()) {
                    c.commit();
                    return;
                }
                CompletableFuture.allOf(acks.toArray(CompletableFuture[]::new)).join();
                ack.acknowledge(c, ids);
                c.commit();
            }
        }
    }
}
