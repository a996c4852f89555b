package dev.outboxrelay.testkit;

import java.io.IOException;
import java.io.PrintStream;

/**
 * A Kafka broker as its own process (see {@link KafkaProcess}): starts the test kit's KRaft broker, prints
 * {@value #READY_PREFIX}{@code host:port} on stdout, and stops it when stdin closes (its parent exited or closed
 * it), so a crashed bench or test never leaves a broker behind.
 */
public final class KafkaProcessMain {

    /** The line that announces the bootstrap address. */
    static final String READY_PREFIX = "broker-ready ";

    private KafkaProcessMain() {
    }

    public static void main(String[] args) throws IOException {
        PrintStream stdout = System.out;
        // The test kit prints its metadata to stdout, which here is the channel to the bench.
        System.setOut(System.err);
        try (TestKafka kafka = TestKafka.start()) {
            stdout.println(READY_PREFIX + kafka.bootstrapServers());
            stdout.flush();
            while (System.in.read() >= 0) {
                // wait for end of input
            }
        }
        System.exit(0);
    }
}
