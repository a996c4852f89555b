package dev.outboxrelay.bench;

import dev.outboxrelay.core.publish.ProducerSettings;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Semaphore;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;

/** The physical limits every contender is compared with. */
final class Ceilings {

    private Ceilings() {
    }

    /** A raw producer run: records per second until the last ack, and the sending JVM's CPU per record (µs). */
    record ProducerRun(double rate, double cpuMicrosPerRecord) {
    }

    /** CPU time of this JVM so far (all threads, GC and JIT included), ns; -1 when the platform cannot say. */
    private static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = java.lang.management.ManagementFactory.getOperatingSystemMXBean();
        return os instanceof com.sun.management.OperatingSystemMXBean sun ? sun.getProcessCpuTime() : -1;
    }

    /**
     * K: one idempotent producer (the relay's own producer settings: acks=all, idempotence, linger 2 ms, 256 KiB
     * batches, lz4) sending {@code records} benchmark payloads, keyed by aggregate, to {@code topic} as fast as
     * acks come back. Returns records per second, counted until the last ack, and the CPU this JVM spent per
     * record meanwhile: the floor of any relay's producing.
     */
    static ProducerRun kafkaProducerRate(String bootstrap, String topic, long records, int aggregates) {
        Map<String, Object> props = new HashMap<>(ProducerSettings.of(bootstrap, Map.of()).producerProperties());
        AtomicReference<Exception> failure = new AtomicReference<>();
        // Bounded in-flight sends so the producer's buffer, not the heap, is the limit.
        Semaphore inFlight = new Semaphore(100_000);
        long start;
        long end;
        long cpuStart;
        long cpuEnd;
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            // Warm the connection and metadata outside the measurement.
            producer.send(new ProducerRecord<>(topic, "warm".getBytes(StandardCharsets.UTF_8), null)).get();
            start = System.nanoTime();
            cpuStart = processCpuNanos();
            for (long i = 0; i < records; i++) {
                String key = Payloads.aggregateId((int) (i % aggregates));
                ProducerRecord<byte[], byte[]> r = new ProducerRecord<>(topic, key.getBytes(StandardCharsets.UTF_8),
                        Payloads.json(i, key).getBytes(StandardCharsets.UTF_8));
                r.headers().add("id", UUID.randomUUID().toString().getBytes(StandardCharsets.UTF_8));
                inFlight.acquire();
                producer.send(r, (metadata, e) -> {
                    if (e != null) {
                        failure.compareAndSet(null, e);
                    }
                    inFlight.release();
                });
            }
            producer.flush();
            inFlight.acquire(100_000);
            end = System.nanoTime();
            cpuEnd = processCpuNanos();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted", e);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new IllegalStateException("could not reach the broker", e.getCause());
        }
        long elapsed = end - start;
        if (failure.get() != null) {
            throw new IllegalStateException("raw producer run failed", failure.get());
        }
        return new ProducerRun(records * 1e9 / elapsed,
                cpuStart < 0 ? Double.NaN : (cpuEnd - cpuStart) / 1e3 / records);
    }

    /**
     * I: the writer's rate, {@code rows} rows in 100-row transactions, as fast as {@code writers} threads can (one
     * for I as the issues define it; more for the database's own insert ceiling).
     */
    static double insertRate(OutboxLoad load, long rows, int writers) {
        long elapsed = load.writeRows(rows, writers);
        return rows * 1e9 / elapsed;
    }
}
