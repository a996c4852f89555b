package dev.outboxrelay.daemon;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The one-time log line about the database's version (the probe logs it when it first connects). */
class ProbesVersionTest {

    @Test
    void testedVersionsGetNoWarning() {
        for (int major = 14; major <= 18; major++) {
            assertThat(Probes.versionWarning(major, major + ".1")).as("PostgreSQL %d", major).isNull();
        }
    }

    @Test
    void versionsOutsideTheTestedRangeAreNamedWithTheRange() {
        assertThat(Probes.versionWarning(13, "13.22")).isEqualTo("Database: PostgreSQL 13.22 is outside the"
                + " versions outbox-relay is tested on (14 to 18); it may work, but nothing checked it");
        assertThat(Probes.versionWarning(19, "19beta1")).startsWith("Database: PostgreSQL 19beta1 is outside");
    }
}
