package dev.outboxrelay.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.testkit.TestJvm;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Keeps the benchmark from rotting: scenarios run with tiny counts against the real PostgreSQL and Kafka of the test
 * kit and the real relay jar, and the consumer must find nothing lost. It asserts correctness and the report's
 * shape, never a timing: the numbers of such a tiny run mean nothing. Two families, each a test class of its own
 * ({@link PollBenchSmokeIT}, {@link CdcBenchSmokeIT}), so the module's two test JVMs run them side by side; each
 * holds what its ratios and floors compare.
 */
final class BenchSmoke {

    /** Built by the relay module's package phase, which runs before this module's tests in the reactor. */
    private static final Path RELAY_JAR = Path.of("..", "relay", "target", "outbox-relay.jar").toAbsolutePath().normalize();
    /** Built by the connect module's package phase, likewise. */
    private static final Path CONNECT_PLUGIN = Path.of("..", "connect", "target", "plugin").toAbsolutePath().normalize();
    private static final List<String> LOADS = List.of("idle", "1000/s", "5000/s", "50%-of-drain",
            "1000/s-after-1s-quiet");

    private BenchSmoke() {
    }

    /**
     * Runs {@code slugs} and checks every outcome; {@code ratios} are the report's ratio lines that this family
     * makes numeric.
     */
    static void run(Set<String> slugs, List<String> ratios) throws Exception {
        assertThat(RELAY_JAR).as("build the relay first: ./mvnw -B -o -pl bench -am verify").isRegularFile();

        Bench.Result result = Bench.run(new Bench.Options(BenchConfig.smoke(), RELAY_JAR,
                TestJvm.words(BenchMain.DEPLOYMENT_JVM_OPTIONS), List.of(), slugs, "smoke test", CONNECT_PLUGIN));

        assertThat(result.outcomes()).containsOnlyKeys(slugs);
        result.outcomes().forEach((slug, outcome) -> {
            assertThat(outcome.verdict().lost()).as("%s lost events: %s", slug, outcome.verdict()).isZero();
            assertThat(outcome.verdict().orderViolations()).as("%s: %s", slug, outcome.verdict()).isZero();
            assertThat(outcome.verdict().expected()).as("%s relayed something", slug).isPositive();
        });
        assertThat(result.insertRate()).as("I, one writer").isPositive();
        assertThat(result.databaseInsertRate()).as("insert ceiling, several writers").isPositive();
        String markdown = Report.markdown(result);
        assertThat(markdown).contains("the database's insert ceiling");
        for (String slug : slugs) {
            Outcome outcome = result.outcomes().get(slug);
            assertThat(outcome.peakRss()).as("%s: its own process", slug).isPresent();
            ScenarioRunner.Role role = Bench.role(slug);
            if (role == ScenarioRunner.Role.RELAY) {
                relayPhases(slug, outcome);
                assertThat(markdown).contains("relay CPU µs/event").contains(outcome.name() + ", stress");
            }
            if (role != ScenarioRunner.Role.BASELINE) {
                assertThat(outcome.curve()).as("%s: the latency curve", slug)
                        .extracting(Outcome.LatencyPoint::label).containsExactlyElementsOf(LOADS);
                assertThat(outcome.curve()).allMatch(p -> p.events() > 0 && p.p99Ms() > 0);
                for (String load : LOADS) {
                    assertThat(markdown).containsPattern("(?m)^latency " + slug + " " + load
                            + " p50=\\d+ p99=\\d+ max=\\d+$");
                }
            }
            if (slug.equals("naive")) {
                continue; // ~100 events/s: no point at 5,000/s
            }
            // Every contender is costed at 5,000/s; relay modes against their floor, which the family runs too.
            Outcome.LatencyPoint cost = outcome.costPoint();
            assertThat(cost).as("%s: the cost point", slug).isNotNull();
            assertThat(cost.label()).isEqualTo("5000/s");
            assertThat(cost.jvmMicros()).as("%s: JVM µs per event", slug).isPositive();
            String floor = Costs.isRelay(slug) ? " floor_us=\\d+\\.\\d" : "";
            assertThat(markdown).containsPattern("(?m)^cost " + slug + " jvm_us=\\d+\\.\\d db_us=\\d+\\.\\d"
                    + floor + "$");
        }
        assertThat(markdown).containsPattern("(?m)^cost producer jvm_us=\\d+\\.\\d$")
                .containsPattern("(?m)^cost insert db_us=\\d+\\.\\d$");
        for (String ratio : ratios) {
            assertThat(markdown).containsPattern("(?m)^ratio " + ratio + " = \\d+\\.\\d\\d$");
        }
        // The relay and broker logs of a passing smoke run are of no use; a failing run keeps them.
        try (Stream<Path> files = Files.walk(result.logs())) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    private static void relayPhases(String relay, Outcome outcome) {
        assertThat(outcome.steady()).as(relay).isNotNull();
        assertThat(outcome.saturation().writeRate()).as("%s: the writer flat out", relay).isPositive();
        assertThat(outcome.stress().writeRate()).as("%s: the stress writers", relay).isPositive();
        CpuMeter.Split cpu = outcome.steady().cpu();
        assertThat(cpu.relayJvm()).as("%s: relay JVM CPU seconds", relay).isPositive();
        assertThat(cpu.relayDb()).as("%s: relay's database sessions' CPU seconds", relay).isPositive();
        assertThat(cpu.writersDb()).as("%s: writers' sessions' CPU seconds", relay).isPositive();
        assertThat(cpu.machine()).as("%s: machine busy CPU seconds", relay)
                .isGreaterThanOrEqualTo(cpu.relayJvm() + cpu.relayDb());
    }
}
