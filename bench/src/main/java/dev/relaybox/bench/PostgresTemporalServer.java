package dev.relaybox.bench;

import dev.relaybox.service.config.TemporalConnection;
import dev.relaybox.service.temporal.TemporalSetup;
import io.temporal.api.workflowservice.v1.GetSystemInfoRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * Temporal's real server as production runs it, for one benchmark pass: its own process, persistence and SQL
 * visibility on a throwaway PostgreSQL cluster of its own (zonky's embedded PostgreSQL, durable like Relaybox's), the
 * namespace registered and Relaybox's search attributes added through {@link TemporalSetup}, as {@code relaybox
 * temporal setup} does for docker-compose. Closing it stops the server and the cluster and deletes their files.
 */
final class PostgresTemporalServer implements AutoCloseable {
    private static final String POSTGRES_USER = "postgres";
    private static final Duration READY_WITHIN = Duration.ofSeconds(90);
    private static final Duration STOP_WITHIN = Duration.ofSeconds(30);

    private final Path directory;
    private final EmbeddedPostgres postgres;
    private final Process server;
    private final int frontendPort;

    private PostgresTemporalServer(Path directory, EmbeddedPostgres postgres, Process server, int frontendPort) {
        this.directory = directory;
        this.postgres = postgres;
        this.server = server;
        this.frontendPort = frontendPort;
    }

    /** Starts it and returns once the frontend answers and {@code namespace} has Relaybox's search attributes. */
    static PostgresTemporalServer start(TemporalServerBuild build, String namespace) throws Exception {
        Path directory = Files.createTempDirectory("relaybox-bench-temporal");
        EmbeddedPostgres postgres = null;
        Process server = null;
        try {
            postgres = EmbeddedPostgres.builder()
                    .setDataDirectory(directory.resolve("postgres"))
                    .setCleanDataDirectory(true)
                    // Durable, as Relaybox's embedded PostgreSQL ships and as production's is: the library's
                    // defaults are a test database's (-F, synchronous_commit off); the last -c wins.
                    .setServerConfig("fsync", "on")
                    .setServerConfig("synchronous_commit", "on")
                    .setServerConfig("full_page_writes", "on")
                    // Four services in one process, each with its own pools of up to 20 connections.
                    .setServerConfig("max_connections", "200")
                    .start();
            createDatabases(postgres);
            Path schemas = build.postgresSchemas;
            applySchema(
                    build,
                    postgres.getPort(),
                    "temporal",
                    schemas.resolve("temporal").resolve("versioned"));
            applySchema(
                    build,
                    postgres.getPort(),
                    "temporal_visibility",
                    schemas.resolve("visibility").resolve("versioned"));

            TemporalServerConfig.Ports ports = TemporalServerConfig.Ports.free();
            Path dynamicConfig = directory.resolve("dynamicconfig.yaml");
            Files.writeString(dynamicConfig, TemporalServerConfig.dynamicConfig());
            Path config = directory.resolve("config.yaml");
            Files.writeString(
                    config, TemporalServerConfig.yaml(ports, postgres.getPort(), POSTGRES_USER, dynamicConfig));
            server = new ProcessBuilder(
                            build.server.toString(), "--config-file", config.toString(), "--allow-no-auth", "start")
                    .directory(directory.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(directory.resolve("server.log").toFile())
                    .start();
            PostgresTemporalServer started = new PostgresTemporalServer(directory, postgres, server, ports.frontend());
            started.awaitFrontend();
            started.setUp(namespace);
            return started;
        } catch (Exception | Error e) {
            stop(server, postgres, directory);
            throw e;
        }
    }

    /** {@code 127.0.0.1:port} of the frontend's gRPC. */
    String target() {
        return "127.0.0.1:" + frontendPort;
    }

    /** The server's process and its PostgreSQL's. */
    EngineProcesses processes() {
        return new EngineProcesses(OptionalLong.of(server.pid()), Optional.of(directory.resolve("postgres")));
    }

    /** "PostgreSQL 17.x": the persistence's version, for the results file. */
    String postgresVersion() {
        try (Connection c = postgres.getPostgresDatabase().getConnection();
                Statement s = c.createStatement();
                var rs = s.executeQuery("SHOW server_version")) {
            rs.next();
            return "PostgreSQL " + rs.getString(1);
        } catch (Exception e) {
            return "PostgreSQL (version unknown)";
        }
    }

    private static void createDatabases(EmbeddedPostgres postgres) throws Exception {
        try (Connection c = postgres.getPostgresDatabase().getConnection();
                Statement s = c.createStatement()) {
            s.execute("CREATE DATABASE temporal");
            s.execute("CREATE DATABASE temporal_visibility");
        }
    }

    /** The schema tool's own two steps, as docker/temporal/setup-schema.sh runs them: version tables, then updates. */
    private static void applySchema(TemporalServerBuild build, int port, String database, Path versioned)
            throws Exception {
        List<String> base = List.of(
                build.sqlTool.toString(),
                "--plugin",
                "postgres12",
                "--ep",
                "127.0.0.1",
                "-p",
                Integer.toString(port),
                "-u",
                POSTGRES_USER,
                "--db",
                database);
        List<String> setup = new ArrayList<>(base);
        setup.addAll(List.of("setup-schema", "-v", "0.0"));
        run(setup);
        List<String> update = new ArrayList<>(base);
        update.addAll(List.of("update-schema", "-d", versioned.toString()));
        run(update);
    }

    private static void run(List<String> command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // The tool reads the password from the environment; the throwaway cluster trusts local connections.
        builder.environment().put("SQL_PASSWORD", "");
        Process tool = builder.start();
        String output = new String(tool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!tool.waitFor(2, TimeUnit.MINUTES) || tool.exitValue() != 0) {
            tool.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
        }
    }

    /** Polls the frontend until it answers; a server that exits or stays silent fails with its log's end. */
    private void awaitFrontend() {
        WorkflowServiceStubs stubs = stubs();
        try {
            long deadline = System.nanoTime() + READY_WITHIN.toNanos();
            while (true) {
                if (!server.isAlive()) {
                    throw new IllegalStateException(
                            "the Temporal server exited with " + server.exitValue() + ":\n" + logTail());
                }
                try {
                    stubs.blockingStub()
                            .withDeadlineAfter(2, TimeUnit.SECONDS)
                            .getSystemInfo(GetSystemInfoRequest.getDefaultInstance());
                    return;
                } catch (RuntimeException notYet) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException(
                                "the Temporal server did not answer within " + READY_WITHIN + ":\n" + logTail(),
                                notYet);
                    }
                }
                Context.sleep(250);
            }
        } finally {
            stubs.shutdownNow();
        }
    }

    private void setUp(String namespace) {
        WorkflowServiceStubs stubs = stubs();
        try (TemporalSetup setup = new TemporalSetup(stubs, namespace, READY_WITHIN)) {
            // Docker-compose's default retention: the engine keeps finished histories as production would.
            setup.run(Duration.ofHours(72)).forEach(step -> System.out.println("postgres-server engine: " + step));
        } finally {
            stubs.shutdownNow();
        }
    }

    private WorkflowServiceStubs stubs() {
        return WorkflowServiceStubs.newServiceStubs(TemporalConnection.plaintext(target())
                .workflowServiceStubsOptions()
                .build());
    }

    private String logTail() {
        try {
            List<String> lines = Files.readAllLines(directory.resolve("server.log"));
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        } catch (IOException e) {
            return "(no log: " + e + ")";
        }
    }

    @Override
    public void close() {
        stop(server, postgres, directory);
    }

    private static void stop(Process server, EmbeddedPostgres postgres, Path directory) {
        if (server != null) {
            server.destroy();
            try {
                if (!server.waitFor(STOP_WITHIN.toSeconds(), TimeUnit.SECONDS)) {
                    server.destroyForcibly().waitFor(STOP_WITHIN.toSeconds(), TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                server.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
        if (postgres != null) {
            try {
                postgres.close();
            } catch (IOException e) {
                System.err.println("could not stop the postgres-server engine's PostgreSQL: " + e);
            }
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException ignored) {
            // A temp directory left behind is harmless.
        }
    }
}
