package dev.relaybox.store;

import static org.assertj.core.api.Assertions.assertThat;

import io.zonky.test.db.postgres.embedded.EmbeddedPostgres;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import javax.sql.DataSource;

/**
 * A real PostgreSQL server of one test that goes away in the two ways that fail differently: paused (every server
 * process SIGSTOPped, as a host freezing or a failover pausing it looks to clients: calls hang until the driver's
 * timeouts, if it has any) and stopped (a fast shutdown that ends every session, then refused connections until it
 * starts again on the same data directory and port, where clients look for it).
 */
public final class StoppablePostgres implements AutoCloseable {
    private final Path data;
    private final int port;
    private volatile EmbeddedPostgres server;
    private volatile List<ProcessHandle> paused = List.of();
    private volatile boolean stopped;

    private StoppablePostgres(Path data, int port) throws IOException {
        this.data = data;
        this.port = port;
        this.server = startOn(data, port);
    }

    /** Starts a server on a free port whose data lives in {@code data}. */
    public static StoppablePostgres start(Path data) throws IOException {
        return new StoppablePostgres(data, freePort());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    /** The {@code postgres} database with the driver properties given; it reaches the server again once back. */
    public DataSource dataSource(Map<String, String> driverProperties) {
        return server.getDatabase("postgres", "postgres", driverProperties);
    }

    /** Its address, for a client that builds its own pool. */
    public String jdbcUrl() {
        return "jdbc:postgresql://localhost:" + port + "/postgres";
    }

    public boolean isPaused() {
        return !paused.isEmpty();
    }

    /**
     * Stops the postmaster first, so that it forks nothing new, then every process it had forked. Safe to call from
     * any thread, once until {@link #resume}.
     */
    public synchronized void pause() {
        if (isPaused()) {
            return;
        }
        ProcessHandle postmaster = postmaster();
        signal("STOP", List.of(postmaster));
        List<ProcessHandle> children = postmaster.descendants().toList();
        signal("STOP", children);
        paused = Stream.concat(Stream.of(postmaster), children.stream()).toList();
    }

    public synchronized void resume() {
        signal("CONT", paused);
        paused = List.of();
    }

    public synchronized void stop() throws IOException {
        server.close();
        stopped = true;
    }

    public synchronized void startAgain() throws IOException {
        server = startOn(data, port);
        stopped = false;
    }

    @Override
    public synchronized void close() throws IOException {
        resume();
        if (!stopped) {
            server.close();
        }
    }

    private ProcessHandle postmaster() {
        // Asked while a backend lives: its parent is the postmaster.
        try (Connection c = server.getPostgresDatabase().getConnection();
                ResultSet pid = c.createStatement().executeQuery("SELECT pg_backend_pid()")) {
            pid.next();
            return ProcessHandle.of(pid.getLong(1))
                    .flatMap(ProcessHandle::parent)
                    .orElseThrow();
        } catch (SQLException e) {
            throw new IllegalStateException("cannot find the postmaster", e);
        }
    }

    private static EmbeddedPostgres startOn(Path data, int port) throws IOException {
        return EmbeddedPostgres.builder()
                .setDataDirectory(data)
                .setCleanDataDirectory(false)
                .setPort(port)
                .start();
    }

    /** Sends the signal to each process still alive; one that has exited meanwhile has nothing to stop. */
    private static void signal(String signal, List<ProcessHandle> processes) {
        for (ProcessHandle process : processes) {
            try {
                Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(process.pid()))
                        .redirectErrorStream(true)
                        .start();
                kill.getInputStream().readAllBytes();
                if (kill.waitFor() != 0) {
                    assertThat(process.isAlive())
                            .as("SIG%s refused by live process %d", signal, process.pid())
                            .isFalse();
                }
            } catch (IOException e) {
                throw new IllegalStateException("cannot send SIG" + signal, e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
