package dev.outboxrelay.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import dev.outboxrelay.core.config.Option;
import dev.outboxrelay.core.config.Passthrough;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The files under {@code deploy/} against the relay's real option declarations: no Docker engine or cluster is
 * needed to catch a misspelt RELAY_* variable, a flag that does not exist, or a probe on the wrong path/port.
 * It lives here, beside the CLI, because the commands' option sets are assembled in this package.
 */
class DeployFilesTest {

    /** The daemon's documented endpoints (served on --http-port; see docs/operator-guide.md). */
    private static final String LIVE = "/health/live";
    private static final String READY = "/health/ready";
    private static final Path DEPLOY = Path.of("..", "deploy").toAbsolutePath().normalize();
    private static final Pattern RELAY_VAR = Pattern.compile("\\bRELAY_[A-Z0-9_]+\\b");
    private static final YAMLMapper YAML = new YAMLMapper();

    private static final Map<String, List<JsonNode>> DOCS = new LinkedHashMap<>();
    private static Cli cli;

    @BeforeAll
    static void load() throws IOException {
        cli = new Cli(Main.sourceFactories(), Map.of(), System.out, System.err);
        try (Stream<Path> files = Files.walk(DEPLOY)) {
            for (Path f : files.filter(p -> p.toString().matches(".*\\.ya?ml")).sorted().toList()) {
                List<JsonNode> docs = YAML.readValues(YAML.getFactory().createParser(f.toFile()), JsonNode.class)
                        .readAll();
                DOCS.put(DEPLOY.relativize(f).toString(), docs);
            }
        }
    }

    @Test
    void everyYamlFileParsesIntoDocuments() {
        assertThat(DOCS.keySet()).contains("docker-compose.yml", "kubernetes/deployment.yaml",
                "kubernetes/configmap.yaml", "kubernetes/secret.yaml", "kubernetes/poddisruptionbudget.yaml",
                "kubernetes/service.yaml", "kubernetes/podmonitor.yaml", "kubernetes/migrate-job.yaml",
                "kubernetes/kustomization.yaml", "prometheus/alerts.yml");
        DOCS.forEach((file, docs) -> assertThat(docs).as(file).isNotEmpty().allMatch(JsonNode::isObject));
    }

    @Test
    void everyRelayVariableIsADeclaredOption() throws IOException {
        Set<String> known = new TreeSet<>();
        cli.commands().forEach(c -> c.spec().options().forEach(o -> known.add(o.envVar())));
        Set<String> used = new TreeSet<>();
        try (Stream<Path> files = Files.walk(DEPLOY)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                Matcher m = RELAY_VAR.matcher(Files.readString(f));
                while (m.find()) {
                    used.add(m.group());
                }
            }
        }
        assertThat(used).contains("RELAY_MODE", "RELAY_DB_URL", "RELAY_DB_PASSWORD_FILE", "RELAY_HTTP_PORT");
        assertThat(known).containsAll(used);
    }

    @Test
    void everyFlagIsAnOptionOfTheCommandItIsGivenTo() throws IOException {
        List<List<String>> commandLines = new ArrayList<>();
        JsonNode compose = doc("docker-compose.yml", "services");
        compose.get("services").forEach(s -> {
            if (s.path("image").asText().startsWith("outbox-relay") && s.has("command")) {
                commandLines.add(strings(s.get("command")));
            }
        });
        commandLines.add(strings(deploymentContainer().get("args")));
        commandLines.add(strings(doc("kubernetes/migrate-job.yaml", "spec")
                .at("/spec/template/spec/containers/0/args")));
        String exec = unit().get("Service").get("ExecStart").get(0);
        commandLines.add(List.of(exec.substring(exec.indexOf("outbox-relay.jar ") + 17).split(" ")));
        String dockerfile = Files.readString(DEPLOY.resolve("Dockerfile"));
        Matcher cmd = Pattern.compile("(?m)^CMD \\[(.*)]$").matcher(dockerfile);
        assertThat(cmd.find()).isTrue();
        commandLines.add(List.of(cmd.group(1).replace("\"", "").split(",\\s*")));

        assertThat(commandLines).hasSizeGreaterThanOrEqualTo(6);
        for (List<String> line : commandLines) {
            Cli.Command command = cli.commands().stream().filter(c -> c.name().equals(line.get(0))).findFirst()
                    .orElseThrow(() -> new AssertionError("not a relay command: " + line));
            for (String arg : line.subList(1, line.size())) {
                if (arg.startsWith("--")) {
                    String name = arg.substring(2).split("=", 2)[0];
                    boolean passthrough = command.spec().passthroughs().stream().map(Passthrough::prefix)
                            .anyMatch(p -> name.startsWith(p + "."));
                    boolean option = command.spec().option(name).filter(o -> !o.environmentOnly()).isPresent();
                    assertThat(option || passthrough).as(arg + " is an option of " + command.name()).isTrue();
                }
            }
        }
    }

    @Test
    void probesUseTheRelaysHealthPathsAndHttpPort() throws IOException {
        int port = Integer.parseInt(CliOptions.HTTP_PORT.defaultValue());
        JsonNode container = deploymentContainer();
        JsonNode http = container.get("ports").get(0);
        assertThat(http.get("name").asText()).isEqualTo("http");
        assertThat(http.get("containerPort").asInt()).isEqualTo(port);
        assertThat(container.at("/livenessProbe/httpGet/path").asText()).isEqualTo(LIVE);
        assertThat(container.at("/livenessProbe/httpGet/port").asText()).isEqualTo("http");
        assertThat(container.at("/readinessProbe/httpGet/path").asText()).isEqualTo(READY);
        assertThat(container.at("/readinessProbe/httpGet/port").asText()).isEqualTo("http");
        assertThat(doc("kubernetes/configmap.yaml", "data").at("/data/RELAY_HTTP_PORT").asInt()).isEqualTo(port);

        JsonNode relay = doc("docker-compose.yml", "services").at("/services/relay");
        assertThat(relay.at("/environment/RELAY_HTTP_PORT").asInt()).isEqualTo(port);
        assertThat(strings(relay.get("ports"))).containsExactly(port + ":" + port);

        String dockerfile = Files.readString(DEPLOY.resolve("Dockerfile"));
        assertThat(dockerfile).contains("EXPOSE " + port, "HEALTHCHECK", "GET " + READY + " ",
                "${RELAY_HTTP_PORT:-" + port + "}", "USER 10001", "FROM eclipse-temurin:17-jre",
                "COPY --chown=root:root --chmod=0444 relay/target/outbox-relay.jar");
    }

    @Test
    void kubernetesRunsTwoNonRootReplicasWithBudgetLimitsAndAFileSecret() {
        JsonNode deployment = doc("kubernetes/deployment.yaml", "spec");
        assertThat(deployment.get("kind").asText()).isEqualTo("Deployment");
        assertThat(deployment.at("/spec/replicas").asInt()).isEqualTo(2);
        JsonNode labels = deployment.at("/spec/template/metadata/labels");
        assertThat(deployment.at("/spec/selector/matchLabels")).isEqualTo(labels);
        assertThat(doc("kubernetes/poddisruptionbudget.yaml", "spec").at("/spec/selector/matchLabels"))
                .isEqualTo(labels);
        assertThat(doc("kubernetes/poddisruptionbudget.yaml", "spec").at("/spec/minAvailable").asInt()).isOne();
        assertThat(deployment.at("/spec/template/spec/securityContext/runAsNonRoot").asBoolean()).isTrue();

        JsonNode container = deploymentContainer();
        for (String path : List.of("/resources/requests/cpu", "/resources/requests/memory",
                "/resources/limits/cpu", "/resources/limits/memory")) {
            assertThat(container.at(path).isMissingNode()).as(path).isFalse();
        }
        assertThat(container.at("/securityContext/allowPrivilegeEscalation").asBoolean(true)).isFalse();
        assertThat(container.at("/securityContext/readOnlyRootFilesystem").asBoolean()).isTrue();
        assertThat(container.at("/envFrom/0/configMapRef/name").asText())
                .isEqualTo(doc("kubernetes/configmap.yaml", "data").at("/metadata/name").asText());

        // The password file the config names is the key of the mounted secret.
        String passwordFile = doc("kubernetes/configmap.yaml", "data").at("/data/RELAY_DB_PASSWORD_FILE").asText();
        JsonNode mount = find(container.get("volumeMounts"), m -> passwordFile.startsWith(m.get("mountPath").asText()));
        JsonNode volume = find(deployment.at("/spec/template/spec/volumes"),
                v -> v.get("name").asText().equals(mount.get("name").asText()));
        JsonNode secret = doc("kubernetes/secret.yaml", "stringData");
        assertThat(volume.at("/secret/secretName").asText()).isEqualTo(secret.at("/metadata/name").asText());
        assertThat(secret.get("stringData").has(Path.of(passwordFile).getFileName().toString())).isTrue();
        assertThat(doc("kubernetes/configmap.yaml", "data").get("data").has("RELAY_DB_PASSWORD")).isFalse();
    }

    @Test
    void composeRunsMigrateOnceThenTheRelayInCdcModeOnALogicalWal() {
        JsonNode services = doc("docker-compose.yml", "services").get("services");
        assertThat(strings(services.at("/postgres/command"))).contains("wal_level=logical");
        assertThat(services.at("/kafka/image").asText()).startsWith("apache/kafka:");
        assertThat(services.at("/kafka/environment/KAFKA_PROCESS_ROLES").asText()).isEqualTo("broker,controller");
        assertThat(strings(services.at("/migrate/command"))).containsExactly("migrate");
        assertThat(services.at("/relay/environment/RELAY_MODE").asText()).isEqualTo("cdc");
        assertThat(services.at("/relay/depends_on/migrate/condition").asText())
                .isEqualTo("service_completed_successfully");
    }

    @Test
    void systemdUnitHasTheExpectedSectionsRestartAndHardening() throws IOException {
        Map<String, Map<String, List<String>>> unit = unit();
        assertThat(unit.keySet()).containsExactly("Unit", "Service", "Install");
        Map<String, List<String>> service = unit.get("Service");
        Map<String, String> expected = Map.of("Restart", "on-failure", "NoNewPrivileges", "yes",
                "ProtectSystem", "strict", "ProtectHome", "yes", "PrivateTmp", "yes", "DynamicUser", "yes",
                "EnvironmentFile", "/etc/outbox-relay/outbox-relay.env");
        expected.forEach((k, v) -> assertThat(service.get(k)).as(k).containsExactly(v));
        assertThat(service.get("LoadCredential")).containsExactly("db-password:/etc/outbox-relay/db-password");
        assertThat(service.get("ExecStart").get(0)).endsWith("outbox-relay.jar run --db-password-file=%d/db-password")
                .contains("-XX:+ExitOnOutOfMemoryError");
        assertThat(service).doesNotContainKey("MemoryDenyWriteExecute"); // the JIT needs it off
        assertThat(unit.get("Install").get("WantedBy")).containsExactly("multi-user.target");

        // The example environment file: every line a RELAY_* option of run, and no password in it.
        Cli.Command run = cli.commands().stream().filter(c -> c.name().equals("run")).findFirst().orElseThrow();
        Set<String> runVars = new LinkedHashSet<>();
        run.spec().options().stream().map(Option::envVar).forEach(runVars::add);
        List<String> lines = Files.readAllLines(DEPLOY.resolve("systemd/outbox-relay.env")).stream()
                .filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        assertThat(lines).isNotEmpty().allSatisfy(l -> assertThat(runVars).contains(l.split("=", 2)[0]))
                .noneMatch(l -> l.startsWith("RELAY_DB_PASSWORD"));
    }

    /** The first document of {@code file} that has the top-level field {@code field}. */
    private static JsonNode doc(String file, String field) {
        return DOCS.get(file).stream().filter(d -> d.has(field)).findFirst()
                .orElseThrow(() -> new AssertionError(file + " has no document with " + field));
    }

    private static JsonNode deploymentContainer() {
        return doc("kubernetes/deployment.yaml", "spec").at("/spec/template/spec/containers/0");
    }

    private static JsonNode find(JsonNode array, java.util.function.Predicate<JsonNode> match) {
        for (JsonNode n : array) {
            if (match.test(n)) {
                return n;
            }
        }
        throw new AssertionError("nothing matches in " + array);
    }

    private static List<String> strings(JsonNode node) {
        List<String> out = new ArrayList<>();
        if (node.isArray()) {
            node.forEach(n -> out.add(n.asText()));
        } else {
            out.addAll(dev.outboxrelay.testkit.TestJvm.words(node.asText()));
        }
        return out;
    }

    /** Section to key to values (systemd keys may repeat), comments and blank lines skipped. */
    private static Map<String, Map<String, List<String>>> unit() throws IOException {
        Map<String, Map<String, List<String>>> sections = new LinkedHashMap<>();
        Map<String, List<String>> current = null;
        for (String raw : Files.readAllLines(DEPLOY.resolve("systemd/outbox-relay.service"))) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#") || line.startsWith(";")) {
                continue;
            }
            if (line.startsWith("[") && line.endsWith("]")) {
                current = sections.computeIfAbsent(line.substring(1, line.length() - 1), k -> new LinkedHashMap<>());
            } else {
                assertThat(current).as("key outside a section: " + line).isNotNull();
                assertThat(line).as("not key=value: " + line).contains("=");
                String[] kv = line.split("=", 2);
                current.computeIfAbsent(kv[0].strip(), k -> new ArrayList<>()).add(kv[1].strip());
            }
        }
        return sections;
    }

    @Test
    void kubernetesKitIsCompleteAndDrainsAreNotBlockedByAnOutage() throws IOException {
        JsonNode kustomization = doc("kubernetes/kustomization.yaml", "resources");
        Set<String> listed = new TreeSet<>(strings(kustomization.get("resources")));
        Set<String> files = new TreeSet<>();
        try (Stream<Path> dir = Files.list(DEPLOY.resolve("kubernetes"))) {
            dir.map(f -> f.getFileName().toString()).filter(n -> !n.equals("kustomization.yaml")).forEach(files::add);
        }
        assertThat(listed).as("kustomization.yaml lists every manifest").isEqualTo(files);

        JsonNode labels = doc("kubernetes/deployment.yaml", "spec").at("/spec/template/metadata/labels");
        JsonNode service = doc("kubernetes/service.yaml", "spec");
        assertThat(service.at("/spec/selector")).isEqualTo(labels);
        assertThat(service.at("/spec/ports/0/targetPort").asText()).isEqualTo("http");
        JsonNode monitor = doc("kubernetes/podmonitor.yaml", "spec");
        assertThat(monitor.at("/spec/selector/matchLabels")).isEqualTo(labels);
        assertThat(monitor.at("/spec/podMetricsEndpoints/0/port").asText()).isEqualTo("http");
        assertThat(monitor.at("/spec/podMetricsEndpoints/0/path").asText()).isEqualTo("/metrics");

        JsonNode job = doc("kubernetes/migrate-job.yaml", "spec");
        assertThat(job.get("kind").asText()).isEqualTo("Job");
        JsonNode migrate = job.at("/spec/template/spec/containers/0");
        assertThat(strings(migrate.get("args"))).containsExactly("migrate");
        assertThat(migrate.at("/envFrom/0/configMapRef/name")).isEqualTo(deploymentContainer()
                .at("/envFrom/0/configMapRef/name"));
        assertThat(job.at("/spec/template/spec/securityContext/runAsNonRoot").asBoolean()).isTrue();

        assertThat(doc("kubernetes/poddisruptionbudget.yaml", "spec").at("/spec/unhealthyPodEvictionPolicy")
                .asText()).as("a drain may evict unready pods (both are unready while Kafka is down)")
                .isEqualTo("AlwaysAllow");
    }

    @Test
    void imageExitsOnOutOfMemoryTakesJvmOptionsAndBuildsFromASmallContext() throws IOException {
        String dockerfile = Files.readString(DEPLOY.resolve("Dockerfile"));
        assertThat(dockerfile).contains("ENV JAVA_OPTS=\"-Xmx256m",
                "ENTRYPOINT [\"sh\", \"-c\", \"exec java -XX:+ExitOnOutOfMemoryError $JAVA_OPTS -jar");
        Path root = DEPLOY.getParent();
        assertThat(Files.readAllLines(root.resolve(".dockerignore"))).contains("**", "!relay/target/outbox-relay.jar");
        assertThat(Files.readString(root.resolve("LICENSE"))).contains("Apache License", "Version 2.0, January 2004");
        assertThat(doc("docker-compose.yml", "services").at("/services/postgres/ports").isMissingNode())
                .as("no host port that clashes with a local PostgreSQL").isTrue();
    }
}
