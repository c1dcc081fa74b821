package dev.relaybox.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Temporal's server and its SQL schema tool as {@code go install} builds them from the Go module proxy, with the
 * schemas from the same module's source in the Go module cache: the postgres-server engine's ingredients.
 */
final class TemporalServerBuild {
    static final String VERSION = "v1.32.2";

    static final String INSTALL = "GOTOOLCHAIN=go1.27.3 go install go.temporal.io/server/cmd/server@" + VERSION
            + " && GOTOOLCHAIN=go1.27.3 go install go.temporal.io/server/cmd/tools/sql@" + VERSION;

    final Path server;
    final Path sqlTool;
    /** {@code schema/postgresql/v12} of the module's source: {@code temporal/} and {@code visibility/}. */
    final Path postgresSchemas;

    private TemporalServerBuild(Path server, Path sqlTool, Path postgresSchemas) {
        this.server = server;
        this.sqlTool = sqlTool;
        this.postgresSchemas = postgresSchemas;
    }

    /** {@code $(go env GOPATH)/bin/server}, where go install puts it. */
    static Path defaultServer() {
        return goEnv("GOPATH")
                .map(gopath -> Path.of(gopath.split(":")[0]))
                .orElse(Path.of(System.getProperty("user.home"), "go"))
                .resolve("bin")
                .resolve("server");
    }

    /**
     * The server at {@code server}, the schema tool beside it (go install names it {@code sql}) and the schemas; fails
     * saying how to build them when one is missing.
     */
    static TemporalServerBuild at(Path server) {
        Path sqlTool = server.resolveSibling("sql");
        Path schemas = goEnv("GOMODCACHE")
                .map(Path::of)
                .orElse(defaultServer().getParent().getParent().resolve("pkg").resolve("mod"))
                .resolve("go.temporal.io")
                .resolve("server@" + VERSION)
                .resolve("schema")
                .resolve("postgresql")
                .resolve("v12");
        for (Path needed : new Path[] {server, sqlTool}) {
            if (!Files.isExecutable(needed)) {
                throw new IllegalStateException(
                        "the postgres-server engine needs Temporal's server and SQL tool " + VERSION
                                + ", and " + needed + " is missing; build them with: " + INSTALL
                                + " (about 6 minutes on 2 cores), or point --temporal-server at the server binary");
            }
        }
        if (!Files.isDirectory(schemas.resolve("temporal").resolve("versioned"))) {
            throw new IllegalStateException("Temporal's PostgreSQL schemas are not at " + schemas
                    + " (the module source go install leaves in the module cache); run: " + INSTALL);
        }
        return new TemporalServerBuild(server, sqlTool, schemas);
    }

    /** The variable from the environment, else from {@code go env}, when go is on the PATH. */
    private static Optional<String> goEnv(String name) {
        String value = System.getenv(name);
        if (value != null && !value.isBlank()) {
            return Optional.of(value.trim());
        }
        try {
            Process go = new ProcessBuilder("go", "env", name)
                    .redirectErrorStream(true)
                    .start();
            String out = new String(go.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            return go.waitFor(30, TimeUnit.SECONDS) && go.exitValue() == 0 && !out.isEmpty()
                    ? Optional.of(out)
                    : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
