package dev.outboxrelay.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class TestJvmTest {

    @Test
    void wordsSplitsOnAnyRunOfWhitespaceAndIgnoresTheEnds() {
        assertThat(TestJvm.words("  -Xmx512m \t-XX:+UseG1GC\n-Dx=a=b  "))
                .containsExactly("-Xmx512m", "-XX:+UseG1GC", "-Dx=a=b");
    }

    @Test
    void wordsOfNothingIsNoWords() {
        assertThat(TestJvm.words(null)).isEmpty();
        assertThat(TestJvm.words("")).isEmpty();
        assertThat(TestJvm.words(" \t ")).isEmpty();
    }
}
