package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class OptionDocsTest {

    @Test
    void operatorGuideListsEveryOptionAsDeclared() throws IOException {
        Path guide = Path.of("..", "docs", "operator-guide.md");
        String text = Files.readString(guide, StandardCharsets.UTF_8);
        assertThat(text)
                .as("docs/operator-guide.md is stale: run `java -cp relay/target/outbox-relay.jar"
                        + " dev.outboxrelay.cli.OptionDocs docs/operator-guide.md`")
                .isEqualTo(OptionDocs.withGeneratedSection(text));
        for (String option : new String[] {"`--db-url`", "`RELAY_DB_PASSWORD`", "`--kafka.<property>=<value>`",
            "`--mode`", "`--publication`", "`--print`"}) {
            assertThat(text).contains(option);
        }
    }
}
