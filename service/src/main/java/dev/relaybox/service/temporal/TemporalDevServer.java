package dev.relaybox.service.temporal;

import io.temporal.api.workflowservice.v1.DescribeNamespaceRequest;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@code temporal server start-dev} as a child process: the real Temporal server on loopback, its output in a log
 * file. Without a database file its state lives in memory and dies with the process. A server left running by a
 * process that died can be {@linkplain #adopt adopted}.
 */
public final class TemporalDevServer implements AutoCloseable {
    private static final String LOOPBACK = "127.0.0.1";

    /**
     * How to start it.
     *
     * @param uiPort the Web UI's port, empty for none ({@code --headless})
     * @param database the SQLite file, empty for in-memory state
     * @param sqlitePragmas {@code name=value} pragmas for that file, for example {@code journal_mode=wal}
     * @param dynamicConfig {@code KEY=JSON} pairs, for example {@code limit.maxIDLength=100}
     */
    public record Options(
            Path cli,
            int port,
            OptionalInt uiPort,
            Optional<Path> database,
            List<String> sqlitePragmas,
            List<String> namespaces,
            List<String> dynamicConfig,
            Path log) {
        public Options {
            sqlitePragmas = List.copyOf(sqlitePragmas);
            namespaces = List.copyOf(namespaces);
            dynamicConfig = List.copyOf(dynamicConfig);
        }

        public static Options inMemory(Path cli, int port, Path log) {
            return new Options(cli, port, OptionalInt.empty(), Optional.empty(), List.of(), List.of(), List.of(), log);
        }

        public Options withUi(int port) {
            return new Options(
                    cli, this.port, OptionalInt.of(port), database, sqlitePragmas, namespaces, dynamicConfig, log);
        }

        public Options withDatabase(Path file, List<String> pragmas) {
            return new Options(cli, port, uiPort, Optional.of(file), pragmas, namespaces, dynamicConfig, log);
        }

        public Options withDynamicConfig(String keyEqualsJson) {
            List<String> values = new ArrayList<>(dynamicConfig);
            values.add(keyEqualsJson);
            return new Options(cli, port, uiPort, database, sqlitePragmas, namespaces, values, log);
        }

        /** The command line after the executable: what tells this server's process apart from any other. */
        public List<String> arguments() {
            return command().subList(1, command().size());
        }

        List<String> command() {
            List<String> command = new ArrayList<>(
                    List.of(cli.toString(), "server", "start-dev", "--ip", LOOPBACK, "--port", Integer.toString(port)));
            if (uiPort.isPresent()) {
                command.addAll(List.of(
                        "--ui-ip",
                        LOOPBACK,
                        "--ui-port",
                        Integer.toString(uiPort.getAsInt()),
                        "--ui-disable-news-fetch"));
            } else {
                command.add("--headless");
            }
            database.ifPresent(file -> command.addAll(List.of("--db-filename", file.toString())));
            sqlitePragmas.forEach(pragma -> command.addAll(List.of("--sqlite-pragma", pragma)));
            namespaces.forEach(namespace -> command.addAll(List.of("--namespace", namespace)));
            dynamicConfig.forEach(value -> command.addAll(List.of("--dynamic-config-value", value)));
            command.addAll(List.of("--log-level", "warn"));
            return command;
        }
    }

    private final Options options;
    private final ProcessHandle process;
    /** The child when this JVM started it; null for a server started by an earlier process and adopted. */
    private final Process child;

    private TemporalDevServer(Options options, ProcessHandle process, Process child) {
        this.options = options;
        this.process = process;
        this.child = child;
    }

    /**
     * A server started earlier (by a process since gone) with {@code options}, once its frontend answers within
     * {@code patience}; empty when it does not, and then it is still running.
     */
    public static Optional<TemporalDevServer> adopt(Options options, ProcessHandle process, Duration patience) {
        TemporalDevServer server = new TemporalDevServer(options, process, null);
        try {
            server.awaitReady(patience);
            return Optional.of(server);
        } catch (IllegalStateException notAnswering) {
            return Optional.empty();
        }
    }

    /** Starts the server and returns once its frontend answers for the default namespace. */
    public static TemporalDevServer start(Options options, Duration patience) {
        ProcessBuilder builder = new ProcessBuilder(options.command())
                .redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.appendTo(options.log().toFile()));
        TemporalDevServer server;
        try {
            Files.createDirectories(options.log().toAbsolutePath().getParent());
            Process child = builder.start();
            server = new TemporalDevServer(options, child.toHandle(), child);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + options.cli() + " server start-dev", e);
        }
        try {
            server.awaitReady(patience);
        } catch (RuntimeException e) {
            server.kill();
            throw e;
        }
        return server;
    }

    private void awaitReady(Duration patience) {
        Instant deadline = Instant.now().plus(patience);
        WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(
                WorkflowServiceStubsOptions.newBuilder().setTarget(address()).build());
        try {
            while (true) {
                if (!process.isAlive()) {
                    throw new IllegalStateException("temporal server start-dev exited"
                            + (child == null ? "" : " with " + child.exitValue()) + "; see " + options.log());
                }
                try {
                    stubs.blockingStub()
                            .withDeadlineAfter(2, TimeUnit.SECONDS)
                            .describeNamespace(DescribeNamespaceRequest.newBuilder()
                                    .setNamespace("default")
                                    .build());
                    return;
                } catch (RuntimeException notYet) {
                    if (Instant.now().isAfter(deadline)) {
                        throw new IllegalStateException(
                                "temporal server start-dev not ready on " + address() + " after " + patience + "; see "
                                        + options.log(),
                                notYet);
                    }
                    pause();
                }
            }
        } finally {
            stubs.shutdownNow();
        }
    }

    private static void pause() {
        try {
            Thread.sleep(100);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting for Temporal", e);
        }
    }

    /** {@code 127.0.0.1:port}: the target clients use. */
    public String address() {
        return LOOPBACK + ":" + options.port();
    }

    public int port() {
        return options.port();
    }

    /** The Web UI's address, if it has one. */
    public Optional<String> uiUrl() {
        return options.uiPort().isPresent()
                ? Optional.of("http://" + LOOPBACK + ":" + options.uiPort().getAsInt())
                : Optional.empty();
    }

    public long pid() {
        return process.pid();
    }

    /** Whether this JVM started it, rather than adopting one an earlier process left running. */
    public boolean adopted() {
        return child == null;
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** kill -9: the server gets no chance to flush or close anything. */
    public void kill() {
        process.destroyForcibly();
        awaitExit(Duration.ofSeconds(30));
    }

    /** SIGTERM, then SIGKILL if it has not stopped within ten seconds. */
    @Override
    public void close() {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        if (!awaitExit(Duration.ofSeconds(10))) {
            kill();
        }
    }

    private boolean awaitExit(Duration patience) {
        try {
            process.onExit().get(patience.toMillis(), TimeUnit.MILLISECONDS);
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (ExecutionException | TimeoutException e) {
            return !process.isAlive();
        }
    }
}
