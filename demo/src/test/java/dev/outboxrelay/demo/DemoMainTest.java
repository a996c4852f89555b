package dev.outboxrelay.demo;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** Usage handling: nothing is started for bad flags or --help. */
class DemoMainTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return DemoMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    @Test
    void helpShowsOptionsAndAnExample() {
        assertThat(run("--help")).isZero();
        assertThat(out.toString(StandardCharsets.UTF_8))
                .contains("--mode", "--events", "--rate", "--keys", "Default: poll", "Default: 20000",
                        "java -jar demo/target/outbox-relay-demo.jar --mode cdc");
    }

    @Test
    void unknownFlagIsOneLineAndExitTwo() {
        assertThat(run("--bogus")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .isEqualTo("error: Unknown option: '--bogus' (see 'java -jar outbox-relay-demo.jar --help')"
                        + System.lineSeparator());
        assertThat(out.toString(StandardCharsets.UTF_8)).isEmpty();
    }

    @Test
    void outOfRangeValueIsOneLineAndExitTwo() {
        assertThat(run("--events", "0")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8))
                .isEqualTo("error: --events: must be between 1 and 10000000, was 0"
                        + " (see 'java -jar outbox-relay-demo.jar --help')" + System.lineSeparator());
    }

    @Test
    void unknownModeIsRejected() {
        assertThat(run("--mode", "batch")).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("error: Invalid value for option '--mode'")
                .doesNotContain("\n" + "error");
    }
}
