package dev.relaybox.service.production;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.service.TestApp;
import dev.relaybox.service.config.AuthFactory;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

/** Relaybox in embedded mode from the built jar, as users run it: free loopback ports, its data in one directory. */
final class EmbeddedJar {
    private static final Path LOGS = Path.of("target", "embedded-jar-it").toAbsolutePath();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private EmbeddedJar() {}

    /** Embedded mode on free ports with its data in {@code data}; a PATH without the Temporal CLI. */
    static Map<String, String> environment(Path data) {
        Map<String, String> environment = new HashMap<>();
        environment.put("PATH", "/usr/local/bin:/usr/bin:/bin");
        environment.put("RELAYBOX_DATA_DIR", data.resolve("postgres").toString());
        // The documented development tokens and partner secret, which embedded mode accepts on loopback when set.
        environment.put("RELAYBOX_ADMIN_TOKENS", TestApp.ADMIN_TOKEN);
        environment.put("RELAYBOX_PRODUCER_TOKENS", TestApp.PRODUCER_TOKEN);
        environment.put("SHOP_WEBHOOK_SECRET", AuthFactory.DEV_PARTNER_SECRET);
        environment.put("EMBEDDED_POSTGRES_PORT", Integer.toString(TestApp.freePort()));
        environment.put("EMBEDDED_POSTGRES_DURABLE", "false");
        environment.put("TEMPORAL_EMBEDDED_PORT", Integer.toString(TestApp.freePort()));
        environment.put("TEMPORAL_EMBEDDED_UI_PORT", Integer.toString(TestApp.freePort()));
        environment.put("PORT", Integer.toString(TestApp.freePort()));
        environment.put("ADMIN_PORT", Integer.toString(TestApp.freePort()));
        return environment;
    }

    /** Starts {@code java -jar relaybox.jar server config.yml} and returns once its health check answers 200. */
    static JavaProcess start(String name, Map<String, String> environment) throws IOException {
        int adminPort = Integer.parseInt(environment.get("ADMIN_PORT"));
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

    private static int healthStatus(int adminPort) {
        try {
            return HTTP.send(
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
}
