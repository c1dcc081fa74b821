package dev.relaybox.bench;

import java.nio.file.Path;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The processes outside this JVM that make up the Temporal engine: the server (the embedded dev server, or the
 * postgres-server engine's Temporal server) and, for the postgres-server engine, the PostgreSQL cluster that is its
 * persistence. Their CPU and memory count as the engine's, apart from Relaybox's own PostgreSQL.
 */
record EngineProcesses(OptionalLong server, Optional<Path> postgresDataDirectory) {
    static final EngineProcesses NONE = new EngineProcesses(OptionalLong.empty(), Optional.empty());

    static EngineProcesses server(long pid) {
        return new EngineProcesses(OptionalLong.of(pid), Optional.empty());
    }

    /** Whether the engine runs outside this JVM (false: the in-process engine, counted in the JVM's figures). */
    boolean isPresent() {
        return server.isPresent();
    }

    /** CPU seconds of the server and of its PostgreSQL's processes, backends that already exited included. */
    double cpuSeconds() {
        double serverSeconds = server.isPresent() ? Cpu.processSeconds(server.getAsLong()) : 0;
        return serverSeconds
                + postgresDataDirectory
                        .map(dir -> Machine.postgresPids(dir).stream()
                                .mapToDouble(Cpu::processSeconds)
                                .sum())
                        .orElse(0.0);
    }

    /**
     * The server's RSS plus its PostgreSQL's PSS (shared buffers split between the backends rather than counted in
     * each), in MiB; NaN without a process of its own.
     */
    double memoryMiB() {
        if (server.isEmpty()) {
            return Double.NaN;
        }
        return Machine.rssMiB(server.getAsLong())
                + postgresDataDirectory.map(Machine::postgresPssMiB).orElse(0.0);
    }
}
