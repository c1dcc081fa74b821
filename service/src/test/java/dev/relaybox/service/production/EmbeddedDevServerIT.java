package dev.relaybox.service.production;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.service.RealTemporal;
import dev.relaybox.service.TestApp;
import dev.relaybox.service.temporal.EmbeddedDevServer;
import dev.relaybox.service.temporal.TemporalCli;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Embedded mode from the jar as users run it, on the Temporal CLI's dev server: Relaybox killed with kill -9 leaves
 * the server running, and the next start on the same data directory adopts it (or replaces it when the settings
 * changed): one server on the database file, never two. Without the CLI it falls back to the in-process engine.
 */
class EmbeddedDevServerIT {
    private static final Path LOGS = Path.of("target", "embedded-dev-server-it").toAbsolutePath();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void afterAKillMinus9TheNextStartAdoptsTheServerLeftRunningAndNeverStartsASecond() throws Exception {
        Path cli = RealTemporal.cli();
        Path data = Files.createTempDirectory("relaybox-it-data");
        // No TEMPORAL_EMBEDDED_DATA_DIR: the dev server's directory is "temporal" beside the database's.
        Path temporal = data.resolve("temporal");
        Map<String, String> environment = embedded(data);
        environment.put("TEMPORAL_CLI", cli.toString());
        int adminPort = Integer.parseInt(environment.get("ADMIN_PORT"));

        JavaProcess first = start("first", environment, adminPort);
        long server = EmbeddedDevServer.recordedPid(temporal).orElseThrow();
        first.kill();
        assertThat(ProcessHandle.of(server))
                .as("the dev server outlives a kill -9 of Relaybox")
                .isPresent();

        long restart = System.nanoTime();
        try (JavaProcess second = start("second", environment, adminPort)) {
            System.out.printf(
                    "restart after kill -9, adopting dev server %d: healthy in %d ms%n",
                    server, Duration.ofNanos(System.nanoTime() - restart).toMillis());
            assertThat(pids(EmbeddedDevServer.allRunning(temporal))).containsExactly(server);
            assertThat(EmbeddedDevServer.recordedPid(temporal)).contains(server);
            assertThat(second.output()).contains("adopted the Temporal dev server");
            second.kill();
        }

        // Settings changed while it was down: the server left running is replaced, not joined by a second.
        environment.put("TEMPORAL_EMBEDDED_UI_PORT", Integer.toString(TestApp.freePort()));
        restart = System.nanoTime();
        try (JavaProcess third = start("third", environment, adminPort)) {
            System.out.printf(
                    "restart after kill -9 with another UI port, replacing dev server %d: healthy in %d ms%n",
                    server, Duration.ofNanos(System.nanoTime() - restart).toMillis());
            List<Long> running = pids(EmbeddedDevServer.allRunning(temporal));
            assertThat(running).hasSize(1).doesNotContain(server);
            assertThat(EmbeddedDevServer.recordedPid(temporal)).contains(running.get(0));
        }
        // A normal stop stops the server with it.
        assertThat(EmbeddedDevServer.allRunning(temporal)).isEmpty();
        assertThat(EmbeddedDevServer.recordedPid(temporal)).isEmpty();
    }

    @Test
    void withoutTheCliEmbeddedModeRunsTheInProcessEngineAndSaysHowToGetTheRealOne() throws Exception {
        Path data = Files.createTempDirectory("relaybox-it-data");
        Map<String, String> environment = embedded(data);
        environment.put("TEMPORAL_CLI", data.resolve("no-such-temporal").toString());
        int adminPort = Integer.parseInt(environment.get("ADMIN_PORT"));

        try (JavaProcess relaybox = start("without-cli", environment, adminPort)) {
            assertThat(relaybox.output())
                    .contains("the in-process engine")
                    .contains(TemporalCli.HOW_TO_INSTALL)
                    .contains("the Temporal UI");
            assertThat(Files.exists(data.resolve("temporal"))).isFalse();
        }
    }

    /** Embedded mode on free ports with its data in {@code data}; a PATH without the Temporal CLI. */
    private static Map<String, String> embedded(Path data) {
        Map<String, String> environment = new HashMap<>();
        environment.put("PATH", "/usr/local/bin:/usr/bin:/bin");
        environment.put("RELAYBOX_DATA_DIR", data.resolve("postgres").toString());
        environment.put("EMBEDDED_POSTGRES_PORT", Integer.toString(TestApp.freePort()));
        environment.put("EMBEDDED_POSTGRES_DURABLE", "false");
        environment.put("TEMPORAL_EMBEDDED_PORT", Integer.toString(TestApp.freePort()));
        environment.put("TEMPORAL_EMBEDDED_UI_PORT", Integer.toString(TestApp.freePort()));
        environment.put("PORT", Integer.toString(TestApp.freePort()));
        environment.put("ADMIN_PORT", Integer.toString(TestApp.freePort()));
        return environment;
    }

    private JavaProcess start(String name, Map<String, String> environment, int adminPort) throws IOException {
        Files.createDirectories(LOGS);
        JavaProcess process = JavaProcess.start(
                name,
                LOGS.resolve(name + "-" + System.nanoTime() + ".log"),
                environment,
                "-jar",
                Production.JAR.toString(),
                "server",
                Production.CONFIG.toString());
        await(name + " healthy")
                .atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofMillis(250))
                .until(() -> !process.isAlive() || healthStatus(adminPort) == 200);
        assertThat(process.isAlive())
                .as("%s exited:%n%s", name, process.output())
                .isTrue();
        return process;
    }

    private int healthStatus(int adminPort) {
        try {
            return http.send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/healthcheck"))
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        } catch (IOException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static List<Long> pids(List<ProcessHandle> processes) {
        return processes.stream().map(ProcessHandle::pid).toList();
    }
}
