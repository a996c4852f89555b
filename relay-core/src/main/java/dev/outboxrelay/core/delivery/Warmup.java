package dev.outboxrelay.core.delivery;

import dev.outboxrelay.core.route.EventRouter;
import java.time.Duration;

/**
 * Runs synthetic events through a delivery pipeline of its own before the source starts, so that the JIT has
 * compiled the pipeline's hot paths (a row's columns into an event, routing, the message format, the partitioner's
 * hash, sending and settling) by the time the first real events arrive. A relay that has just started, or a standby
 * that takes over, then pays no compilation on those paths under its first load. Nothing leaves the process: the
 * warm-up's publisher answers every record itself and its row store writes nothing; the real publisher, database and
 * metrics are never touched.
 *
 * <p>What it cannot warm: the JDBC driver's and Debezium's decoding of real rows, and the Kafka producer's
 * accumulator and network code. Those still compile under the first real load.
 */
public interface Warmup {

    /** A warm-up through {@code router}: the relay's own, so that its template and message format are warmed. */
    static Warmup pipeline(EventRouter router) {
        return new PipelineWarmup(router);
    }

    /**
     * Delivers {@code events} synthetic events, in batches like a source's, or fewer when {@code limit} passes first.
     *
     * @throws InterruptedException when the calling thread is interrupted (the relay is stopping)
     */
    Report run(int events, Duration limit) throws InterruptedException;

    /**
     * What a warm-up did.
     *
     * @param events    synthetic events submitted to the pipeline
     * @param published of them, records the router made and the pipeline handed to the (discarding) publisher; fewer
     *                  when the relay's template or allowed topics refuse the synthetic rows, which then warm the
     *                  dead-letter path instead
     * @param took      how long it ran
     */
    record Report(int events, long published, Duration took) {
    }
}
