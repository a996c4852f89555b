package dev.outboxrelay.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Waiting, never sleeping: every test source of every module, and the contract suites in this kit, follow
 * {@link FixedSleepRule}. A test that asserts after a fixed sleep fails on a slow machine and wastes time on a
 * fast one; it waits for what it asserts, with a bound.
 */
class NoFixedSleepTest {

    @Test
    void noTestSleepsOrAssertsAfterAFixedPause() throws IOException {
        Path root = Path.of("").toAbsolutePath().getParent();
        assertThat(root.resolve("test-kit/pom.xml")).as("the build runs this from test-kit/").exists();
        List<Path> dirs = new ArrayList<>();
        try (Stream<Path> modules = Files.list(root)) {
            modules.map(m -> m.resolve("src/test/java")).filter(Files::isDirectory).forEach(dirs::add);
        }
        dirs.add(root.resolve("test-kit/src/main/java/dev/outboxrelay/testkit/contract"));
        List<String> violations = new ArrayList<>();
        int files = 0;
        for (Path dir : dirs) {
            try (Stream<Path> sources = Files.walk(dir)) {
                for (Path source : (Iterable<Path>) sources.filter(p -> p.toString().endsWith(".java"))::iterator) {
                    files++;
                    violations.addAll(FixedSleepRule.violations(root.relativize(source).toString(),
                            Files.readAllLines(source)));
                }
            }
        }
        assertThat(files).as("test sources found under %s", root).isGreaterThan(100);
        assertThat(violations).isEmpty();
    }

    @Test
    void theRuleFindsSleepsAndAssertionsAfterAPause() {
        assertThat(FixedSleepRule.violations("A.java", List.of(
                "Thread.sleep(100);",
                "TimeUnit.SECONDS.sleep(1);",
                "LockSupport.parkNanos(5);",
                "Pacing.pause(3000); // the outage lasts",
                "",
                "    assertThat(x).isTrue();",
                "Pacing.pause(10);",
                "assertTimeout(Duration.ofSeconds(1), source::close);",
                "Pacing.pause(10);",
                "kafka.restart(); // Thread.sleep(1) in a comment is fine",
                "String s = \"Thread.sleep(1) in a string is fine\";")))
                .containsExactly(
                        "A.java:1: a sleep; pace with Pacing.pause, wait with await()",
                        "A.java:2: a sleep; pace with Pacing.pause, wait with await()",
                        "A.java:3: a sleep; pace with Pacing.pause, wait with await()",
                        "A.java:6: an assertion right after a fixed pause;"
                                + " await() the condition (or await().during() that it holds)");
    }
}
