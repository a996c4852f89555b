package dev.outboxrelay.testkit;

import java.util.Arrays;
import java.util.List;

/**
 * The JIT and class-loading options of every JVM a test starts (relays, Connect workers) and of the test JVMs
 * themselves ({@code test.jit} in the root pom says the same): they live seconds to minutes on a 2-core machine.
 * <ul>
 *   <li>C1 only: C2's compile threads cost such a JVM more CPU than its faster code saves.</li>
 *   <li>No bytecode verification of class-path classes: the relay's and its libraries' classes are verified again
 *       by every JVM start, about 15 % of a relay's start-up CPU here; a test run would only ever verify the same
 *       jars that the build made and Maven Central served.</li>
 * </ul>
 * The benchmark's relays, brokers and workers keep the JVM's defaults: they measure the product as it ships.
 */
public final class TestJvm {

    /** The options, in the order they are given to {@code java}. */
    public static final List<String> OPTIONS = List.of("-XX:TieredStopAtLevel=1",
            "-XX:+UnlockDiagnosticVMOptions", "-XX:-BytecodeVerificationRemote");

    /**
     * Space-separated options or flags (a system property, a unit file's command line) as a list; none for a blank
     * or null string. The one splitter of the bench and the tests, so that they all read such strings alike.
     */
    public static List<String> words(String value) {
        return value == null || value.isBlank() ? List.of() : Arrays.asList(value.trim().split("\\s+"));
    }

    private TestJvm() {
    }
}
