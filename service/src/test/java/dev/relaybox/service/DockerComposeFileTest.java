package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Keeps the production-like path honest: docker-compose.yml must validate with the docker-compose CLI, set
 * Temporal up with Relaybox's own command, and pass Relaybox every secret production refuses to default.
 * (ProductionModeIT runs Relaybox with exactly this file's environment.)
 */
class DockerComposeFileTest {
    @Test
    void composeFileValidates() throws Exception {
        String dockerCompose = dockerComposeOrSkip();
        Path stdout = Files.createTempFile("docker-compose-config", ".out");
        Path stderr = Files.createTempFile("docker-compose-config", ".err");
        try {
            ProcessBuilder builder = new ProcessBuilder(dockerCompose, "-f", "../docker-compose.yml", "config", "-q")
                    .redirectOutput(stdout.toFile())
                    .redirectError(stderr.toFile());
            // Mandatory in docker-compose.yml (${VAR:?...}); any non-empty value validates.
            builder.environment().put("RELAYBOX_ADMIN_TOKENS", "compose-test-admin-token");
            builder.environment().put("RELAYBOX_PRODUCER_TOKENS", "compose-test-producer-token");
            builder.environment().put("SHOP_WEBHOOK_SECRET", "whsec_Y29tcG9zZS10ZXN0");
            builder.environment().put("RELAYBOX_SECRETS_KEY", "Y29tcG9zZS10ZXN0LXNlY3JldHMta2V5LTAwMDAwMDE=");
            Process process = builder.start();
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                fail("docker-compose config did not finish within 2 minutes");
            }
            String errors = Files.readString(stderr, StandardCharsets.UTF_8);
            assertThat(process.exitValue())
                    .as("docker-compose -f ../docker-compose.yml config -q failed:%n%s", errors)
                    .isZero();
        } finally {
            Files.deleteIfExists(stdout);
            Files.deleteIfExists(stderr);
        }
    }

    @Test
    void temporalIsSetUpByRelayboxTemporalSetupBeforeRelayboxStarts() {
        ComposeFile compose = ComposeFile.read();
        List<String> command = new ArrayList<>();
        compose.service("temporal-setup").path("command").forEach(part -> command.add(part.asText()));

        assertThat(command)
                .startsWith("java", "-jar", "/app/relaybox.jar", "temporal", "setup")
                .endsWith("/app/config.yml");
        assertThat(compose.service("relaybox")
                        .path("depends_on")
                        .path("temporal-setup")
                        .path("condition")
                        .asText())
                .isEqualTo("service_completed_successfully");
        assertThat(compose.environment("temporal-setup", Map.of()))
                .containsKeys("TEMPORAL_ADDRESS", "TEMPORAL_NAMESPACE");
    }

    @Test
    void relayboxGetsEverySecretProductionRequiresFromTheOperator() {
        ComposeFile compose = ComposeFile.read();
        Map<String, String> variables = new HashMap<>(Map.of(
                "RELAYBOX_ADMIN_TOKENS", "admin-token",
                "RELAYBOX_PRODUCER_TOKENS", "producer-token",
                "SHOP_WEBHOOK_SECRET", "whsec_c2hvcA==",
                "RELAYBOX_SECRETS_KEY", "c2VjcmV0cy1rZXk="));

        Map<String, String> environment = compose.environment("relaybox", variables);

        assertThat(environment)
                .containsEntry("RELAYBOX_ADMIN_TOKENS", "admin-token")
                .containsEntry("RELAYBOX_PRODUCER_TOKENS", "producer-token")
                .containsEntry("SHOP_WEBHOOK_SECRET", "whsec_c2hvcA==")
                .containsEntry("RELAYBOX_SECRETS_KEY", "c2VjcmV0cy1rZXk=")
                .containsEntry("ALLOWED_PRIVATE_NETWORKS", "")
                .doesNotContainKey("ALLOW_PRIVATE_NETWORKS")
                .containsKeys("DATABASE_URL", "TEMPORAL_ADDRESS");
        for (String required : List.of(
                "RELAYBOX_ADMIN_TOKENS", "RELAYBOX_PRODUCER_TOKENS", "SHOP_WEBHOOK_SECRET", "RELAYBOX_SECRETS_KEY")) {
            Map<String, String> missingOne = new HashMap<>(variables);
            missingOne.remove(required);
            assertThatThrownBy(() -> compose.environment("relaybox", missingOne))
                    .as("docker-compose up without %s", required)
                    .hasMessageContaining(required);
        }
    }

    @Test
    void scaledProfileRunsDispatcherWorkersWithRelayboxsEnvironment() {
        ComposeFile compose = ComposeFile.read();
        Map<String, String> api = new HashMap<>(compose.rawEnvironment("relaybox"));
        Map<String, String> worker = new HashMap<>(compose.rawEnvironment("relaybox-worker"));

        assertThat(worker.remove("RELAYBOX_ROLES")).isEqualTo("dispatcher,worker");
        assertThat(api.remove("RELAYBOX_ROLES")).isEqualTo("${RELAYBOX_ROLES:-api,dispatcher,worker}");
        // Only relaybox publishes ports; the worker's listeners stay on its own loopback (config.yml's default).
        assertThat(api.remove("BIND_HOST")).isEqualTo("0.0.0.0");
        assertThat(api.remove("ADMIN_BIND_HOST")).isEqualTo("0.0.0.0");
        assertThat(worker).as("relaybox-worker's environment beside relaybox's").isEqualTo(api);
        assertThat(compose.ports("relaybox-worker")).isEmpty();
        assertThat(compose.service("relaybox-worker").path("profiles").get(0).asText())
                .isEqualTo("scaled");
    }

    @Test
    void controlPlanesArePublishedOnThisHostOnly() {
        ComposeFile compose = ComposeFile.read();

        assertThat(compose.ports("temporal")).as("Temporal gRPC").allMatch(port -> port.startsWith("127.0.0.1:"));
        assertThat(compose.ports("temporal-ui")).as("Temporal UI").allMatch(port -> port.startsWith("127.0.0.1:"));
        assertThat(compose.ports("relaybox"))
                .as("Relaybox ports")
                .contains("8080:8080", "127.0.0.1:8081:8081")
                .filteredOn(port -> port.endsWith(":8081"))
                .allMatch(port -> port.startsWith("127.0.0.1:"));
    }

    @Test
    void relayboxImageIsBuiltOnceByTheFirstRelayboxServiceToStart() {
        ComposeFile compose = ComposeFile.read();
        List<String> relayboxServices = List.of("temporal-setup", "relaybox", "relaybox-worker");

        for (String name : relayboxServices) {
            assertThat(compose.service(name).path("image").asText()).as(name).isEqualTo("relaybox:local");
        }
        assertThat(compose.service("temporal-setup").has("build")).isTrue();
        for (String name : List.of("relaybox", "relaybox-worker")) {
            assertThat(compose.service(name).has("build"))
                    .as("%s builds the image again", name)
                    .isFalse();
            assertThat(compose.service(name).path("pull_policy").asText())
                    .as(name)
                    .isEqualTo("never");
            assertThat(compose.service(name).path("depends_on").has("temporal-setup"))
                    .as(name)
                    .isTrue();
        }
    }

    @Test
    void temporalReadsTheDynamicConfigFileMountedFromTheRepository() {
        ComposeFile compose = ComposeFile.read();
        String file = compose.rawEnvironment("temporal").get("DYNAMIC_CONFIG_FILE_PATH");
        List<String> volumes = new ArrayList<>();
        compose.service("temporal").path("volumes").forEach(volume -> volumes.add(volume.asText()));

        assertThat(file).isEqualTo("config/dynamicconfig/development-sql.yaml");
        assertThat(volumes).contains("./docker/temporal/dynamicconfig:/etc/temporal/config/dynamicconfig:ro");
        assertThat(ComposeFile.REPO.resolve("docker/temporal/dynamicconfig/development-sql.yaml"))
                .isRegularFile();
    }

    @Test
    void temporalUiOpensRelayboxsNamespace() {
        ComposeFile compose = ComposeFile.read();

        assertThat(compose.environment("temporal-ui", Map.of("TEMPORAL_NAMESPACE", "relaybox-prod")))
                .containsEntry("TEMPORAL_DEFAULT_NAMESPACE", "relaybox-prod");
        assertThat(compose.environment("temporal-ui", Map.of())).containsEntry("TEMPORAL_DEFAULT_NAMESPACE", "default");
    }

    /** The docker-compose binary on PATH; skips the test without it, except on CI where it must be present. */
    private static String dockerComposeOrSkip() {
        String path = System.getenv().getOrDefault("PATH", "");
        for (String directory : path.split(Pattern.quote(File.pathSeparator))) {
            if (directory.isEmpty()) {
                continue;
            }
            Path candidate = Path.of(directory, "docker-compose");
            if (Files.isRegularFile(candidate) && Files.isExecutable(candidate)) {
                return candidate.toString();
            }
        }
        if (System.getenv("CI") != null) {
            fail("install docker-compose (apt-get install docker-compose)");
        }
        Assumptions.assumeTrue(false, "docker-compose is not on PATH; skipping the compose file validation");
        throw new IllegalStateException("unreachable");
    }
}
