package dev.relaybox.service.temporal;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Embedded mode's real Temporal engine: {@code temporal server start-dev} as a child process with its SQLite file,
 * pid file and log in one directory, so workflows, timers and history survive a restart of Relaybox. A server that a
 * killed Relaybox left running is found (its pid file, else its command line naming the same database file) and
 * adopted when it answers with the same options, replaced otherwise: there are never two on one database file.
 */
public final class EmbeddedDevServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(EmbeddedDevServer.class);
    public static final String DATABASE_FILE = "temporal.db";
    public static final String PID_FILE = "temporal.pid";
    public static final String LOG_FILE = "temporal.log";
    /** A first start creates the SQLite schema: on a loaded 2-core machine that takes tens of seconds. */
    private static final Duration START_PATIENCE = Duration.ofMinutes(2);

    private static final Duration ADOPT_PATIENCE = Duration.ofSeconds(20);
    private static final Duration STOP_PATIENCE = Duration.ofSeconds(15);

    private final TemporalDevServer server;
    private final Path directory;

    private EmbeddedDevServer(TemporalDevServer server, Path directory) {
        this.server = server;
        this.directory = directory;
    }

    /**
     * The server's options for {@code directory}: gRPC and the UI on 127.0.0.1, state in its SQLite file with
     * {@code pragmas} ({@code name=value}).
     */
    static TemporalDevServer.Options options(
            Path cli, Path directory, int port, OptionalInt uiPort, List<String> pragmas) {
        TemporalDevServer.Options options = TemporalDevServer.Options.inMemory(cli, port, directory.resolve(LOG_FILE))
                .withDatabase(directory.resolve(DATABASE_FILE), pragmas)
                // Tasks queued in matching take turns by fairness key (a workflow's tenant or partner).
                .withDynamicConfig("matching.enableFairness=true");
        return uiPort.isPresent() ? options.withUi(uiPort.getAsInt()) : options;
    }

    /** Adopts the server already running on {@code directory}'s database when it fits, else starts one. */
    public static EmbeddedDevServer start(
            Path cli, Path directory, int port, OptionalInt uiPort, List<String> pragmas) {
        try {
            Files.createDirectories(directory);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + directory, e);
        }
        TemporalDevServer.Options options = options(cli, directory, port, uiPort, pragmas);
        Optional<ProcessHandle> running = running(directory);
        if (running.isPresent()) {
            ProcessHandle process = running.get();
            if (arguments(process).equals(options.arguments())) {
                Optional<TemporalDevServer> adopted = TemporalDevServer.adopt(options, process, ADOPT_PATIENCE);
                if (adopted.isPresent()) {
                    writePid(directory, process.pid());
                    LOG.info("adopted the Temporal dev server left running on {} (pid {})", directory, process.pid());
                    return new EmbeddedDevServer(adopted.get(), directory);
                }
                LOG.warn(
                        "the Temporal dev server left running on {} (pid {}) does not answer; replacing it",
                        directory,
                        process.pid());
            } else {
                LOG.info(
                        "the Temporal dev server left running on {} (pid {}) has other settings; replacing it",
                        directory,
                        process.pid());
            }
            stop(process);
        }
        refuseTakenPort(port, "temporal.embeddedPort");
        uiPort.ifPresent(ui -> refuseTakenPort(ui, "temporal.embeddedUiPort"));
        TemporalDevServer server = TemporalDevServer.start(options, START_PATIENCE);
        writePid(directory, server.pid());
        return new EmbeddedDevServer(server, directory);
    }

    /**
     * The server process on {@code directory}'s database, if one runs: the pid file's, or any whose command line
     * names that file (a pid file lost or overwritten must not lead to a second server on it).
     */
    public static Optional<ProcessHandle> running(Path directory) {
        String database = directory.resolve(DATABASE_FILE).toString();
        Optional<ProcessHandle> recorded =
                recordedPid(directory).flatMap(ProcessHandle::of).filter(process -> serves(process, database));
        if (recorded.isPresent()) {
            return recorded;
        }
        return ProcessHandle.allProcesses()
                .filter(process -> serves(process, database))
                .findFirst();
    }

    /** Every process serving {@code directory}'s database: one at most, unless something went wrong. */
    public static List<ProcessHandle> allRunning(Path directory) {
        String database = directory.resolve(DATABASE_FILE).toString();
        return ProcessHandle.allProcesses()
                .filter(process -> serves(process, database))
                .toList();
    }

    /** The pid in {@code directory}'s pid file, if there is one. */
    public static Optional<Long> recordedPid(Path directory) {
        try {
            return Optional.of(Long.parseLong(Files.readString(directory.resolve(PID_FILE), StandardCharsets.US_ASCII)
                    .strip()));
        } catch (NoSuchFileException | NumberFormatException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + directory.resolve(PID_FILE), e);
        }
    }

    private static boolean serves(ProcessHandle process, String database) {
        if (!process.isAlive()) {
            return false;
        }
        List<String> arguments = arguments(process);
        int at = arguments.indexOf("--db-filename");
        return arguments.contains("start-dev")
                && at >= 0
                && at + 1 < arguments.size()
                && arguments.get(at + 1).equals(database);
    }

    private static List<String> arguments(ProcessHandle process) {
        return process.info().arguments().map(List::of).orElse(List.of());
    }

    private static void stop(ProcessHandle process) {
        process.destroy();
        try {
            process.onExit().get(STOP_PATIENCE.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while stopping the Temporal dev server " + process.pid(), e);
        } catch (ExecutionException | TimeoutException e) {
            process.destroyForcibly();
            process.onExit().join();
        }
    }

    /** A port someone else listens on makes the server exit at once; this says which setting to change. */
    private static void refuseTakenPort(int port, String setting) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 1000);
        } catch (IOException free) {
            return;
        }
        throw new IllegalStateException("refusing to start: 127.0.0.1:" + port + " (" + setting
                + ") is in use by another process; choose another port");
    }

    private static void writePid(Path directory, long pid) {
        Path file = directory.resolve(PID_FILE);
        try {
            Path partial = directory.resolve(PID_FILE + ".partial");
            Files.writeString(partial, pid + "\n", StandardCharsets.US_ASCII);
            Files.move(partial, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }

    public String target() {
        return server.address();
    }

    public long pid() {
        return server.pid();
    }

    public boolean adopted() {
        return server.adopted();
    }

    /** The UI's address for links: {@code http://localhost:<port>}, if it has a UI. */
    public Optional<String> uiUrl() {
        return server.uiUrl().map(url -> url.replace("127.0.0.1", "localhost"));
    }

    public Path directory() {
        return directory;
    }

    /** Stops the server (its state stays in the database file) and removes the pid file. */
    @Override
    public void close() {
        server.close();
        try {
            Files.deleteIfExists(directory.resolve(PID_FILE));
        } catch (IOException e) {
            LOG.warn("cannot remove {}: {}", directory.resolve(PID_FILE), e.toString());
        }
    }
}
