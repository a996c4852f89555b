package dev.outboxrelay.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;

import org.junit.jupiter.api.Test;

/**
 * Log4j 2 is only a runtime dependency (through the Kafka server), so it is reached by reflection: the test
 * proves that the kit's log4j2-test.xml, not Kafka's INFO-to-stdout log4j2.yaml, configures it.
 */
class LoggingConfigTest {

    @Test
    void log4jIsQuietByDefault() throws Exception {
        Class<?> logManager = Class.forName("org.apache.logging.log4j.LogManager");
        Object logger = logManager.getMethod("getLogger", String.class).invoke(null, "kafka.server.SomeServerClass");
        Method isInfoEnabled = logger.getClass().getMethod("isInfoEnabled");
        Method isWarnEnabled = logger.getClass().getMethod("isWarnEnabled");
        assertThat((Boolean) isInfoEnabled.invoke(logger)).isFalse();
        assertThat((Boolean) isWarnEnabled.invoke(logger)).isTrue();
    }
}
