package dev.relaybox.service.production;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.service.RealTemporal;
import dev.relaybox.service.ScratchDirectories;
import dev.relaybox.service.TestApp;
import dev.relaybox.service.temporal.EmbeddedDevServer;
import dev.relaybox.service.temporal.TemporalCli;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Embedded mode from the jar as users run it, on the Temporal CLI's dev server: Relaybox killed with kill -9 leaves
 * the server running, and the next start on the same data directory adopts it (or replaces it when the settings
 * changed): one server on the database file, never two. Without the CLI it falls back to the in-process engine.
 */
class EmbeddedDevServerIT {
    @Test
    void afterAKillMinus9TheNextStartAdoptsTheServerLeftRunningAndNeverStartsASecond() throws Exception {
        Path cli = RealTemporal.cli();
        Path data = ScratchDirectories.create("relaybox-it-data");
        // No TEMPORAL_EMBEDDED_DATA_DIR: the dev server's directory is "temporal" beside the database's.
        Path temporal = data.resolve("temporal");
        Map<String, String> environment = EmbeddedJar.environment(data);
        environment.put("TEMPORAL_CLI", cli.toString());

        JavaProcess first = EmbeddedJar.start("first", environment);
        long server = EmbeddedDevServer.recordedPid(temporal).orElseThrow();
        first.kill();
        assertThat(ProcessHandle.of(server))
                .as("the dev server outlives a kill -9 of Relaybox")
                .isPresent();

        long restart = System.nanoTime();
        try (JavaProcess second = EmbeddedJar.start("second", environment)) {
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
        try (JavaProcess third = EmbeddedJar.start("third", environment)) {
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
        Path data = ScratchDirectories.create("relaybox-it-data");
        Map<String, String> environment = EmbeddedJar.environment(data);
        environment.put("TEMPORAL_CLI", data.resolve("no-such-temporal").toString());

        try (JavaProcess relaybox = EmbeddedJar.start("without-cli", environment)) {
            assertThat(relaybox.output())
                    .contains("the in-process engine")
                    .contains(TemporalCli.HOW_TO_INSTALL)
                    .contains("the Temporal UI");
            assertThat(Files.exists(data.resolve("temporal"))).isFalse();
        }
    }

    private static List<Long> pids(List<ProcessHandle> processes) {
        return processes.stream().map(ProcessHandle::pid).toList();
    }
}
