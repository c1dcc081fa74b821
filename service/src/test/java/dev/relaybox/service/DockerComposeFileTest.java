package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Keeps the production-like path honest: docker-compose.yml must validate with the docker-compose CLI, and
 * the search attributes its setup step registers must be exactly those the workflows set.
 */
class DockerComposeFileTest {
    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Path COMPOSE_FILE = REPO.resolve("docker-compose.yml");
    private static final Path REGISTER_SCRIPT = REPO.resolve("docker/temporal/register.sh");
    private static final Path SEARCH_ATTRIBUTES_SOURCE =
            REPO.resolve("workflows/src/main/java/dev/relaybox/workflows/RelaySearchAttributes.java");

    private static final Pattern JAVA_KEY = Pattern.compile(
            "forKeyword\\(\"(\\w+)\"\\)|forLong\\(\"(\\w+)\"\\)|forKeywordList\\(\"(\\w+)\"\\)");
    private static final Pattern SCRIPT_REGISTRATION =
            Pattern.compile("(?m)^\\s*register_search_attribute\\s+(\\w+)\\s+(\\w+)\\s*$");

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
    void setupStepRegistersExactlyTheWorkflowSearchAttributes() throws IOException {
        Map<String, String> inJava = new LinkedHashMap<>();
        Matcher java = JAVA_KEY.matcher(Files.readString(SEARCH_ATTRIBUTES_SOURCE, StandardCharsets.UTF_8));
        while (java.find()) {
            if (java.group(1) != null) {
                inJava.put(java.group(1), "Keyword");
            } else if (java.group(3) != null) {
                inJava.put(java.group(3), "KeywordList");
            } else {
                inJava.put(java.group(2), "Int");
            }
        }

        Map<String, String> inScript = new LinkedHashMap<>();
        Matcher script = SCRIPT_REGISTRATION.matcher(Files.readString(REGISTER_SCRIPT, StandardCharsets.UTF_8));
        while (script.find()) {
            assertThat(inScript.put(script.group(1), script.group(2)))
                    .as("register.sh registers %s twice", script.group(1))
                    .isNull();
        }

        assertThat(inScript.keySet()).containsExactlyInAnyOrder(
                "RelayDirection", "RelayStatus", "RelayEventType", "RelayAggregate", "RelayPeer", "RelayAttempts",
                "RelayEndpoints");
        assertThat(inScript)
                .as("search attributes in %s vs %s", REPO.relativize(REGISTER_SCRIPT),
                        REPO.relativize(SEARCH_ATTRIBUTES_SOURCE))
                .isEqualTo(inJava);

        String compose = Files.readString(COMPOSE_FILE, StandardCharsets.UTF_8);
        assertThat(compose)
                .as("docker-compose.yml runs register.sh in its temporal-namespace step")
                .contains("temporal-namespace:")
                .contains("./docker/temporal/register.sh:");
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
