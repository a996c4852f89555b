package dev.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** deploy/connect: the connector config the docs and the compose file register is one the connector accepts. */
class DeployFilesTest {

    private static final Path DIR = Path.of("..", "deploy", "connect");

    @Test
    void theRegisteredConnectorConfigIsValid() throws IOException {
        Map<String, String> config = new HashMap<>(new ObjectMapper().readValue(
                DIR.resolve("outbox-connector.json").toFile(), new TypeReference<Map<String, String>>() { }));
        assertThat(config.get("connector.class")).isEqualTo(OutboxSourceConnector.class.getName());
        assertThat(config.get("db-password")).as("the password comes from a config provider")
                .startsWith("${file:/etc/outbox-connect/secrets.properties:");
        config.put("db-password", "resolved-by-the-worker");
        assertThat(OutboxSourceConnector.connectorProblems(config)).isEmpty();
        assertThat(ConnectorOptions.problems(config)).isEmpty();
    }

    @Test
    void theWorkerLoadsThePluginFromWhereComposeMountsIt() throws IOException {
        Properties worker = new Properties();
        try (Reader in = Files.newBufferedReader(DIR.resolve("worker.properties"), StandardCharsets.UTF_8)) {
            worker.load(in);
        }
        String compose = Files.readString(DIR.resolve("docker-compose.yml"), StandardCharsets.UTF_8);
        assertThat(compose).contains("../../connect/target/plugin:" + worker.getProperty("plugin.path") + ":ro")
                .contains("connect-distributed.sh").contains("/connectors/outbox/config");
        assertThat(worker.getProperty("config.providers.file.class"))
                .isEqualTo("org.apache.kafka.common.config.provider.FileConfigProvider");
    }
}
