package dev.relaybox.bench;

import dev.relaybox.service.config.SecretsFactory;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Relaybox from the built jar as its own OS process, as a user runs it ({@code java -jar relaybox.jar server
 * config.yml}) with the JVM's defaults, the environment given on top of this one's, its output appended to a log.
 */
final class RelayboxProcess implements AutoCloseable {
    /** Long enough for a first start on a loaded machine (PostgreSQL's initdb, the dev server's schema). */
    static final Duration BOOT_LIMIT = Duration.ofMinutes(3);

    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Process process;
    private final int adminPort;

    private RelayboxProcess(Process process, int adminPort) {
        this.process = process;
        this.adminPort = adminPort;
    }

    /** Starts it; {@code environment} must name ADMIN_PORT. */
    static RelayboxProcess start(Path jar, Path config, Map<String, String> environment, Path log) {
        List<String> command = new ArrayList<>();
        command.add(ProcessHandle.current().info().command().orElse("java"));
        command.addAll(List.of("-jar", jar.toString(), "server", config.toString()));
        ProcessBuilder builder = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
        builder.environment().putAll(environment);
        try {
            return new RelayboxProcess(builder.start(), Integer.parseInt(environment.get("ADMIN_PORT")));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + jar, e);
        }
    }

    /**
     * The environment of a worker-only Relaybox ({@code RELAYBOX_ROLES=worker}) beside {@code relaybox}, as production
     * runs one: the embedded parts' addresses, the same task queue and secrets key, throwaway tokens of its own.
     */
    static Map<String, String> workerBeside(Relaybox relaybox) {
        var database = relaybox.config().getDatabase();
        Path keyDirectory = Path.of(relaybox.config().getEmbeddedPostgres().getDataDirectory());
        Map<String, String> environment = new HashMap<>();
        environment.put("RELAYBOX_ROLES", "worker");
        environment.put("DATABASE_URL", database.getUrl());
        environment.put("DATABASE_USER", database.getUser());
        environment.put("DATABASE_PASSWORD", database.getPassword() == null ? "" : database.getPassword());
        environment.put("TEMPORAL_ADDRESS", relaybox.temporalTarget());
        environment.put("TEMPORAL_TASK_QUEUE", relaybox.config().getTemporal().getTaskQueue());
        environment.put(
                "RELAYBOX_SECRETS_KEY",
                SecretsFactory.readEmbeddedKey(keyDirectory.toAbsolutePath()).orElseThrow());
        for (String token : List.of("RELAYBOX_ADMIN_TOKENS", "RELAYBOX_PRODUCER_TOKENS")) {
            environment.put(token, UUID.randomUUID().toString());
        }
        environment.put(
                "SHOP_WEBHOOK_SECRET",
                "whsec_"
                        + Base64.getEncoder()
                                .encodeToString(UUID.randomUUID().toString().getBytes(StandardCharsets.US_ASCII)));
        environment.put("ALLOWED_PRIVATE_NETWORKS", "127.0.0.0/8");
        environment.put("PORT", Integer.toString(Relaybox.freePort()));
        environment.put("ADMIN_PORT", Integer.toString(Relaybox.freePort()));
        return environment;
    }

    /** Waits until its health check answers 200; false if it exited or did not within {@code limit}. */
    boolean awaitHealthy(Duration limit) {
        long deadline = System.nanoTime() + limit.toNanos();
        while (process.isAlive() && System.nanoTime() < deadline) {
            if (healthStatus() == 200) {
                return true;
            }
            Context.sleep(200);
        }
        return false;
    }

    private int healthStatus() {
        HttpRequest health = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/healthcheck"))
                .timeout(Duration.ofSeconds(5))
                .build();
        try {
            return HTTP.send(health, HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException | InterruptedException notYet) {
            if (notYet instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return -1;
        }
    }

    long pid() {
        return process.pid();
    }

    /** kill -9: no shutdown hook runs, the engine and PostgreSQL it started are left as they are. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    /** A normal stop (SIGTERM), which stops the engine and PostgreSQL with it. */
    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(60, TimeUnit.SECONDS)) {
                kill();
            }
        }
    }
}
