package dev.outboxrelay.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Keeps the benchmark from rotting: every scenario runs with tiny counts against the real PostgreSQL and Kafka
 * of the test kit and the real relay jar, and the consumer must find nothing lost. It asserts correctness and
 * the report's shape, never a timing: the numbers of such a tiny run mean nothing.
 */
class BenchSmokeIT {

    /** Built by the relay module's package phase, which runs before this module's tests in the reactor. */
    private static final Path RELAY_JAR = Path.of("..", "relay", "target", "outbox-relay.jar").toAbsolutePath().normalize();
    /** Built by the connect module's package phase, likewise. */
    private static final Path CONNECT_PLUGIN = Path.of("..", "connect", "target", "plugin").toAbsolutePath().normalize();

    @Test
    void everyScenarioRunsAndLosesNothing() throws Exception {
        assertThat(RELAY_JAR).as("build the relay first: ./mvnw -B -o -pl bench -am verify").isRegularFile();

        Bench.Result result = Bench.run(new Bench.Options(BenchConfig.smoke(), RELAY_JAR, List.of("-Xmx256m", "-Xms64m", "-Xmn48m",
                "-XX:+UseSerialGC"), List.of(),
                Set.of(), "smoke test", CONNECT_PLUGIN));

        assertThat(result.outcomes()).containsOnlyKeys(Bench.SLUGS);
        result.outcomes().forEach((slug, outcome) -> {
            assertThat(outcome.verdict().lost()).as("%s lost events: %s", slug, outcome.verdict()).isZero();
            assertThat(outcome.verdict().orderViolations()).as("%s: %s", slug, outcome.verdict()).isZero();
            assertThat(outcome.verdict().expected()).as("%s relayed something", slug).isPositive();
        });
        assertThat(result.insertRate()).as("I, one writer").isPositive();
        assertThat(result.databaseInsertRate()).as("insert ceiling, several writers").isPositive();
        for (String relay : List.of("poll-mark", "poll-delete", "cdc", "cdc-delete", "connect")) {
            assertThat(result.outcomes().get(relay).steady()).as(relay).isNotNull();
            assertThat(result.outcomes().get(relay).saturation().writeRate()).as("%s: the writer flat out", relay)
                    .isPositive();
            assertThat(result.outcomes().get(relay).stress().writeRate()).as("%s: the stress writers", relay)
                    .isPositive();
            assertThat(result.outcomes().get(relay).peakRss()).as(relay).isPresent();
            CpuMeter.Split cpu = result.outcomes().get(relay).steady().cpu();
            assertThat(cpu.relayJvm()).as("%s: relay JVM CPU seconds", relay).isPositive();
            assertThat(cpu.relayDb()).as("%s: relay's database sessions' CPU seconds", relay).isPositive();
            assertThat(cpu.writersDb()).as("%s: writers' sessions' CPU seconds", relay).isPositive();
            assertThat(cpu.machine()).as("%s: machine busy CPU seconds", relay)
                    .isGreaterThanOrEqualTo(cpu.relayJvm() + cpu.relayDb());
        }
        String markdown = Report.markdown(result);
        assertThat(markdown).contains("relay CPU µs/event").contains("the database's insert ceiling")
                .contains("poll (mark), stress");
        for (String ratio : List.of("poll/batched", "poll/naive", "cdc/debezium", "cdc/poll", "poll/K", "cdc/K",
                "steady/I")) {
            assertThat(markdown).containsPattern("(?m)^ratio " + ratio.replace("/", "/") + " = \\d+\\.\\d\\d$");
        }
        List<String> loads = List.of("idle", "1000/s", "5000/s", "50%-of-drain", "1000/s-after-1s-quiet");
        for (String curved : List.of("poll-mark", "poll-delete", "cdc", "cdc-delete", "connect", "floor-poll",
                "floor-cdc")) {
            assertThat(result.outcomes().get(curved).curve()).as("%s: the latency curve", curved)
                    .extracting(Outcome.LatencyPoint::label).containsExactlyElementsOf(loads);
            assertThat(result.outcomes().get(curved).curve()).allMatch(p -> p.events() > 0 && p.p99Ms() > 0);
            for (String load : loads) {
                assertThat(markdown).containsPattern("(?m)^latency " + curved + " " + load
                        + " p50=\\d+ p99=\\d+ max=\\d+$");
            }
        }
        // Every contender runs in its own process and is costed at 5,000/s; relay modes against their floor.
        for (String slug : Bench.SLUGS) {
            assertThat(result.outcomes().get(slug).peakRss()).as("%s: its own process", slug).isPresent();
            if (slug.equals("naive")) {
                continue; // ~100 events/s: no point at 5,000/s
            }
            Outcome.LatencyPoint cost = result.outcomes().get(slug).costPoint();
            assertThat(cost).as("%s: the cost point", slug).isNotNull();
            assertThat(cost.label()).isEqualTo("5000/s");
            assertThat(cost.jvmMicros()).as("%s: JVM µs per event", slug).isPositive();
            String floor = Costs.isRelay(slug) ? " floor_us=\\d+\\.\\d" : "";
            assertThat(markdown).containsPattern("(?m)^cost " + slug + " jvm_us=\\d+\\.\\d db_us=\\d+\\.\\d"
                    + floor + "$");
        }
        assertThat(markdown).containsPattern("(?m)^cost producer jvm_us=\\d+\\.\\d$")
                .containsPattern("(?m)^cost insert db_us=\\d+\\.\\d$");
        // The relay and broker logs of a passing smoke run are of no use; a failing run keeps them.
        try (Stream<Path> files = Files.walk(result.logs())) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
