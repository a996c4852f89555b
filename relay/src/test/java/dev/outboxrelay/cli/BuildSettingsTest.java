package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.xpath.XPathConstants;
import javax.xml.xpath.XPathFactory;
import org.junit.jupiter.api.Test;
import org.w3c.dom.Document;
import org.w3c.dom.Element;

/** Build settings users rely on, read from the root pom. */
class BuildSettingsTest {

    @Test
    void onlyTheIntegrationTestsFetchPostgresDistributionsAndSkipTestsFetchesNone() throws Exception {
        DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
        Document pom = factory.newDocumentBuilder().parse(Path.of("..", "pom.xml").toFile());
        Element execution = (Element) XPathFactory.newInstance().newXPath().evaluate(
                "//*[local-name()='execution'][*[local-name()='id']='postgres-distributions']", pom,
                XPathConstants.NODE);
        assertThat(execution).as("the execution that copies zonky's PostgreSQL binaries").isNotNull();
        assertThat(text(execution, "phase")).isEqualTo("pre-integration-test");
        assertThat(text(execution, "skip")).isEqualTo("${skipTests}");
        assertThat(text(pom.getDocumentElement(), "skipTests")).as("declared, so that it is a boolean by default")
                .isEqualTo("false");
    }

    private static String text(Element parent, String name) {
        return parent.getElementsByTagName(name).item(0).getTextContent().strip();
    }
}
