package dev.outboxrelay.connect;

import static org.assertj.core.api.Assertions.assertThat;

import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.OptionSet;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.Test;

/**
 * docs/kafka-connect.md lists the connector's keys as declared: the table between the markers is generated from
 * {@link ConnectorOptions}. Run with {@code -Dconnector.docs.write=true} to refresh it.
 */
class KafkaConnectDocsTest {

    static final String BEGIN = "<!-- BEGIN GENERATED CONNECTOR OPTIONS: edit the declarations, then run"
            + " ./mvnw -pl connect test -Dtest=KafkaConnectDocsTest -Dconnector.docs.write=true -->";
    static final String END = "<!-- END GENERATED CONNECTOR OPTIONS -->";
    private static final Path DOC = Path.of("..", "docs", "kafka-connect.md");

    @Test
    void theGuideListsEveryConnectorKeyAsDeclared() throws IOException {
        String text = Files.readString(DOC, StandardCharsets.UTF_8);
        int begin = text.indexOf(BEGIN);
        int end = text.indexOf(END);
        assertThat(begin).as("docs/kafka-connect.md has the generated section's markers").isNotNegative();
        assertThat(end).isGreaterThan(begin);
        String current = text.substring(0, begin + BEGIN.length()) + "\n" + markdown() + text.substring(end);
        if (Boolean.getBoolean("connector.docs.write")) {
            Files.writeString(DOC, current, StandardCharsets.UTF_8);
            text = current;
        }
        assertThat(text).as("docs/kafka-connect.md is stale: run ./mvnw -pl connect test -Dtest=KafkaConnectDocsTest"
                + " -Dconnector.docs.write=true").isEqualTo(current);
    }

    private static String markdown() {
        StringBuilder md = new StringBuilder();
        ConfigDef def = ConnectorOptions.configDef();
        for (OptionSet set : ConnectorOptions.SPEC.sets()) {
            md.append("\n#### ").append(set.title()).append("\n\n")
                    .append("| Key | Connect type | Default | Description |\n|---|---|---|---|\n");
            for (Option<?> o : set.options()) {
                md.append("| `").append(o.name()).append("` | ").append(def.configKeys().get(o.name()).type)
                        .append(" | ").append(o.required() ? "required" : o.defaultValue() == null ? ""
                                : "`" + o.defaultValue() + "`")
                        .append(" | ").append(o.doc().replace("|", "\\|")).append(" |\n");
            }
        }
        return md.append('\n').toString();
    }
}
