package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.LoggingEvent;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.time.OffsetDateTime;
import java.util.List;
import net.logstash.logback.encoder.LogstashEncoder;
import org.junit.jupiter.api.Test;
import org.slf4j.event.KeyValuePair;

class LoggingTest {

    @Test
    void jsonLinesCarryAnIsoTimestampTheRelayItsModeAndTheTopic() throws Exception {
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new ch.qos.logback.classic.util.LogbackMDCAdapter());
        context.putProperty("relay", "orders");
        context.putProperty("mode", "cdc");
        LogstashEncoder encoder = Logging.jsonEncoder(context);
        LoggingEvent event = new LoggingEvent("fqcn", context.getLogger("dev.outboxrelay.core.delivery.TopicLimits"),
                Level.WARN, "Cannot publish to topic {}", new IllegalStateException("boom"), new Object[] {"t1"});
        event.setKeyValuePairs(List.of(new KeyValuePair("topic", "t1")));
        String line = new String(encoder.encode(event), StandardCharsets.UTF_8);

        assertThat(line).endsWith("\n").doesNotContain("\n{");
        JsonNode json = new ObjectMapper().readTree(line);
        assertThat(OffsetDateTime.parse(json.get("@timestamp").asText())).isNotNull();
        assertThat(json.get("message").asText()).isEqualTo("Cannot publish to topic t1");
        assertThat(json.get("level").asText()).isEqualTo("WARN");
        assertThat(json.get("relay").asText()).isEqualTo("orders");
        assertThat(json.get("mode").asText()).isEqualTo("cdc");
        assertThat(json.get("topic").asText()).isEqualTo("t1");
        assertThat(json.get("stack_trace").asText()).contains("IllegalStateException: boom");
        assertThat(json.has("@version")).isFalse();
    }
}
