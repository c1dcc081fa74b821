package dev.relaybox.service.production;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.service.ComposeFile;
import dev.relaybox.service.RealTemporal;
import dev.relaybox.service.TestApp;
import dev.relaybox.service.temporal.TemporalDevServer;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * Relaybox's production shape on one machine, every part its own process: PostgreSQL from the machine's
 * binaries, the real Temporal server ({@code temporal server start-dev}: in-memory SQLite, SQL visibility) set up
 * by {@code relaybox temporal setup} as docker-compose.yml's temporal-setup service does, and Relaybox processes
 * from the built jar with only the environment docker-compose.yml gives its relaybox service, host and port values
 * pointing at these processes.
 */
final class Production implements AutoCloseable {
    static final Path JAR = Path.of("target", "relaybox.jar").toAbsolutePath();
    static final Path CONFIG = ComposeFile.REPO.resolve("config.yml");
    static final String ADMIN_TOKEN = "it-admin-" + random(32);
    static final String PRODUCER_TOKEN = "it-producer-" + random(32);
    static final String SHOP_SECRET =
            "whsec_" + Base64.getEncoder().encodeToString(random(24).getBytes());

    private final Path logs;
    /** The operator's variables {@code relaybox temporal setup} runs with (its namespace, for one). */
    private final Map<String, String> setupVariables;

    private final LocalPostgres postgres;
    private TemporalDevServer temporal;
    /** The address Relaybox knows Temporal by when the server behind it is to be replaced; null otherwise. */
    private TcpRelay front;

    private final List<JavaProcess> relayboxes = new ArrayList<>();
    final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private Production(
            Path logs, Map<String, String> setupVariables, LocalPostgres postgres, TemporalDevServer temporal) {
        this.logs = logs;
        this.setupVariables = Map.copyOf(setupVariables);
        this.postgres = postgres;
        this.temporal = temporal;
    }

    /**
     * Starts PostgreSQL and Temporal and sets Temporal up. Skips the calling test when PostgreSQL or the Temporal
     * CLI is not installed on a developer's machine; on CI (CI=true) that fails instead.
     */
    static Production start(String name) throws Exception {
        return start(name, Map.of());
    }

    /** {@link #start}, with the operator's {@code variables} for docker-compose.yml's temporal-setup service. */
    private static Production start(String name, Map<String, String> variables) throws Exception {
        Optional<Path> binaries = LocalPostgres.binaries();
        if (binaries.isEmpty()) {
            String why = "PostgreSQL server binaries not found under /usr/lib/postgresql "
                    + "(apt-get install postgresql; .ci/run installs it)";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                Assertions.fail(why);
            }
            Assumptions.abort("skipping the production-mode test: " + why);
        }
        Path cli = RealTemporal.cli();
        assertThat(JAR).as("the shaded jar (mvn package builds it)").isRegularFile();
        Path logs = Files.createDirectories(Path.of("target", "production-it", name))
                .toAbsolutePath();
        LocalPostgres postgres = LocalPostgres.start(binaries.get(), logs);
        Production production;
        try {
            production = new Production(logs, variables, postgres, startTemporal(cli, logs, "temporal"));
        } catch (Throwable e) {
            postgres.close();
            throw e;
        }
        try {
            production.setUpTemporal("temporal-setup");
        } catch (Throwable e) {
            production.close();
            throw e;
        }
        return production;
    }

    /** A new, empty Temporal server: {@code temporal server start-dev} on a free port, state in memory, no UI. */
    private static TemporalDevServer startTemporal(Path cli, Path logs, String name) {
        Path log = logs.resolve(name + ".log");
        try {
            // The server appends to its log; this run's log should hold this run only.
            Files.deleteIfExists(log);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return TemporalDevServer.start(
                TemporalDevServer.Options.inMemory(cli, TestApp.freePort(), log), Duration.ofMinutes(1));
    }

    /**
     * {@link #start}, with Temporal behind a fixed address so that {@link #replaceTemporalWithAnEmptyOne} can replace
     * the server process while Relaybox keeps the address it was given.
     */
    static Production startWithReplaceableTemporal(String name, Map<String, String> variables) throws Exception {
        Production production = start(name, variables);
        production.front = new TcpRelay(production.temporal.port());
        return production;
    }

    /** kill -9 of the Temporal process: its state lives in memory only, so all of it is gone. */
    void killTemporal() {
        temporal.kill();
        front.forwardTo(0);
    }

    /**
     * A new, empty Temporal server answers at Temporal's address, not set up yet: what an operator's restarted
     * cluster is until docker-compose.yml's one-shot temporal-setup service has run ({@link #setUpTemporal}). It has
     * only the dev server's {@code default} namespace.
     */
    void replaceTemporalWithAnEmptyOne(String name) {
        temporal.close();
        temporal = startTemporal(RealTemporal.cli(), logs, name);
        front.forwardTo(temporal.port());
    }

    /** docker-compose.yml's temporal-setup service: its command and environment, run against our Temporal. */
    void setUpTemporal(String name) throws Exception {
        ComposeFile compose = ComposeFile.read();
        Map<String, String> environment = new HashMap<>(compose.environment("temporal-setup", setupVariables));
        pointAtOurProcesses(environment, temporal.port());
        List<String> command = new ArrayList<>();
        compose.service("temporal-setup").path("command").forEach(part -> command.add(part.asText()));
        assertThat(command).as("temporal-setup's command").startsWith("java", "-jar", "/app/relaybox.jar");
        List<String> arguments = new ArrayList<>();
        for (String part : command.subList(1, command.size())) {
            arguments.add(
                    switch (part) {
                        case "/app/relaybox.jar" -> JAR.toString();
                        case "/app/config.yml" -> CONFIG.toString();
                        default -> ComposeFile.interpolate(part, setupVariables);
                    });
        }
        JavaProcess setup =
                JavaProcess.start(name, logs.resolve(name + ".log"), environment, arguments.toArray(String[]::new));
        assertThat(setup.awaitExit(180))
                .as("relaybox temporal setup:%n%s", setup.output())
                .isZero();
        assertThat(setup.output()).contains("search attribute RelayStatus (Keyword)");
    }

    /** The variables an operator exports before {@code docker-compose up}. */
    static Map<String, String> operatorVariables() {
        Map<String, String> variables = new HashMap<>();
        variables.put("RELAYBOX_ADMIN_TOKENS", ADMIN_TOKEN);
        variables.put("RELAYBOX_PRODUCER_TOKENS", PRODUCER_TOKEN);
        variables.put("SHOP_WEBHOOK_SECRET", SHOP_SECRET);
        variables.put("RELAYBOX_DB_PASSWORD", LocalPostgres.RELAYBOX_PASSWORD);
        variables.put("RELAYBOX_SECRETS_KEY", "cHJvZHVjdGlvbi1pdC1zZWNyZXRzLWtleS0wMDAwMDE=");
        // The test's receivers listen on loopback, which production refuses unless allowed.
        variables.put("ALLOWED_PRIVATE_NETWORKS", "127.0.0.0/8");
        return variables;
    }

    /**
     * The environment docker-compose.yml gives the relaybox service for these variables, with its host and
     * port values pointed at this machine's processes, plus the listening ports.
     */
    Map<String, String> relayboxEnvironment(Map<String, String> variables, int port, int adminPort) {
        Map<String, String> environment = new LinkedHashMap<>(ComposeFile.read().environment("relaybox", variables));
        pointAtOurProcesses(environment, front == null ? temporal.port() : front.port());
        environment.put("PORT", Integer.toString(port));
        environment.put("ADMIN_PORT", Integer.toString(adminPort));
        return environment;
    }

    private void pointAtOurProcesses(Map<String, String> environment, int temporalPort) {
        if (environment.containsKey("DATABASE_URL")) {
            environment.put("DATABASE_URL", postgres.jdbcUrl());
        }
        assertThat(environment).as("compose environment").containsKey("TEMPORAL_ADDRESS");
        environment.put("TEMPORAL_ADDRESS", "127.0.0.1:" + temporalPort);
    }

    /** Starts {@code relaybox server config.yml} from the jar, as the image's CMD does. */
    JavaProcess startRelaybox(String name, Map<String, String> environment) {
        JavaProcess process = JavaProcess.start(
                name, logs.resolve(name + ".log"), environment, "-jar", JAR.toString(), "server", CONFIG.toString());
        relayboxes.add(process);
        return process;
    }

    /** Waits until the admin port's health checks all pass; fails with the process output if it dies. */
    void awaitHealthy(JavaProcess process, int adminPort) {
        await(process.name() + " healthy")
                .atMost(Duration.ofMinutes(3))
                .pollInterval(Duration.ofMillis(500))
                .until(() -> !process.isAlive() || healthStatus(adminPort) == 200);
        assertThat(process.isAlive())
                .as("%s exited:%n%s", process.name(), process.output())
                .isTrue();
    }

    /** The admin port's /healthcheck status, or -1 while nothing answers. */
    int healthStatus(int adminPort) {
        try {
            return get("http://127.0.0.1:" + adminPort + "/healthcheck", null).statusCode();
        } catch (UncheckedIOException e) {
            return -1;
        }
    }

    HttpResponse<String> get(String url, String token) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(10));
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        return send(request.GET().build());
    }

    /** A shop webhook about {@code order} as the partner sends it (Standard Webhooks), signed with {@code secret}. */
    HttpResponse<String> postShopWebhook(String api, String secret, String eventId, String type, String order) {
        String body = "{\"type\":\"" + type + "\",\"data\":{\"orderId\":\"" + order + "\"}}";
        String timestamp = Long.toString(Instant.now().getEpochSecond());
        return post(
                api + "/webhooks/shop",
                null,
                Map.of(
                        "webhook-id", eventId,
                        "webhook-timestamp", timestamp,
                        "webhook-signature", Signatures.standardWebhooks(secret, eventId, timestamp, body)),
                body);
    }

    HttpResponse<String> post(String url, String token, Map<String, String> headers, String body) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url))
                .timeout(Duration.ofSeconds(10))
                .header("Content-Type", "application/json");
        if (token != null) {
            request.header("Authorization", "Bearer " + token);
        }
        headers.forEach(request::header);
        return send(request.POST(HttpRequest.BodyPublishers.ofString(body)).build());
    }

    private HttpResponse<String> send(HttpRequest request) {
        try {
            return http.send(request, HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new UncheckedIOException(request.method() + " " + request.uri() + ": " + e, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    Path logs() {
        return logs;
    }

    /** Reads Relaybox's database as the relaybox role, as an operator's psql would. */
    Jdbi database() {
        return Jdbi.create(postgres.jdbcUrl(), "relaybox", LocalPostgres.RELAYBOX_PASSWORD);
    }

    private static String random(int length) {
        String alphabet = "abcdefghijklmnopqrstuvwxyz0123456789";
        SecureRandom random = new SecureRandom();
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < length; i++) {
            text.append(alphabet.charAt(random.nextInt(alphabet.length())));
        }
        return text.toString();
    }

    @Override
    public void close() throws Exception {
        for (JavaProcess relaybox : relayboxes) {
            relaybox.close();
        }
        if (front != null) {
            front.close();
        }
        temporal.close();
        postgres.close();
    }
}
