package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.core.spi.FilterReply;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

class KafkaClientNoiseFilterTest {

    private final AtomicLong now = new AtomicLong();
    private final KafkaClientNoiseFilter filter = new KafkaClientNoiseFilter(now::get);
    private final LoggerContext context = new LoggerContext();

    private FilterReply warn(String logger) {
        return filter.decide(null, context.getLogger(logger), Level.WARN, "Connection to node -1 could not be"
                + " established", null, null);
    }

    @Test
    void oneWarningPerKafkaClientLoggerPerInterval() {
        filter.setIntervalSeconds(60);
        assertThat(warn("org.apache.kafka.clients.NetworkClient")).isEqualTo(FilterReply.NEUTRAL);
        for (int i = 0; i < 100; i++) {
            now.addAndGet(250_000_000L); // 25 s of reconnect attempts
            assertThat(warn("org.apache.kafka.clients.NetworkClient")).isEqualTo(FilterReply.DENY);
        }
        assertThat(warn("org.apache.kafka.clients.producer.internals.Sender")).isEqualTo(FilterReply.NEUTRAL);
        now.addAndGet(36_000_000_000L);
        assertThat(warn("org.apache.kafka.clients.NetworkClient")).as("the next outage is reported again")
                .isEqualTo(FilterReply.NEUTRAL);
    }

    @Test
    void otherLoggersAndLevelsPass() {
        warn("org.apache.kafka.clients.NetworkClient");
        assertThat(filter.decide(null, context.getLogger("org.apache.kafka.clients.NetworkClient"), Level.ERROR, "x",
                null, null)).isEqualTo(FilterReply.NEUTRAL);
        assertThat(warn("dev.outboxrelay.core.delivery.Settler")).isEqualTo(FilterReply.NEUTRAL);
        assertThat(warn("dev.outboxrelay.core.delivery.Settler")).isEqualTo(FilterReply.NEUTRAL);
    }

    @Test
    void theShippedLogbackConfigurationInstallsIt() {
        LoggerContext shipped = (LoggerContext) LoggerFactory.getILoggerFactory();
        assertThat(shipped.getTurboFilterList()).hasAtLeastOneElementOfType(KafkaClientNoiseFilter.class);
    }
}
