package dev.outboxrelay.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The demo's main logic in-process, small: its own PostgreSQL and Kafka, the real relay, and the verdict read
 * back from the topic.
 */
class DemoIT {

    @ParameterizedTest
    @ValueSource(strings = {"poll", "cdc"})
    void relaysEverythingInPerKeyOrder(String mode) {
        Run run = Run.of("--mode", mode, "--events", "1500", "--rate", "1000", "--keys", "30");

        assertThat(run.exitCode).as(run.out + run.err).isZero();
        assertThat(run.out)
                .contains("--mode " + mode)
                .containsPattern("\\[  1s\\] written +\\d+ \\( *\\d+/s\\)  relayed +\\d+ \\( *\\d+/s\\)  received +\\d+")
                .containsPattern("(?m)^lost 0, duplicates \\d+, per-key order ok$")
                .containsPattern("(?m)^OK in \\d+\\.\\d s$");
    }

    private record Run(int exitCode, String out, String err) {
        static Run of(String... args) {
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            int code = DemoMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            return new Run(code, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        }
    }
}
