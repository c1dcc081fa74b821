package dev.relaybox.service;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.OptionalInt;
import java.util.Set;

/**
 * A consistent backup of the embedded database with {@code pg_dump}: one snapshot of the whole database, so it may
 * be taken while Relaybox runs. The embedded binaries from Maven hold only the server, so {@code pg_dump} comes from
 * PostgreSQL's client tools (Debian: postgresql-client), of the server's major version or newer.
 */
final class EmbeddedDump {
    private EmbeddedDump() {}

    /**
     * The port of a PostgreSQL running on {@code dataDirectory}, from its {@code postmaster.pid}: the file outlives a
     * crash, so the process it names must also still be alive.
     */
    static OptionalInt runningServerPort(Path dataDirectory) throws IOException {
        List<String> lines;
        try {
            lines = Files.readAllLines(dataDirectory.resolve("postmaster.pid"), StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return OptionalInt.empty();
        }
        // Line 1 is the postmaster's process id, line 4 its port.
        if (lines.size() < 4
                || ProcessHandle.of(Long.parseLong(lines.get(0).trim()))
                        .filter(ProcessHandle::isAlive)
                        .isEmpty()) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(Integer.parseInt(lines.get(3).trim()));
    }

    /**
     * Runs pg_dump of database {@code postgres} on localhost:{@code port} into {@code output} as plain SQL. The file
     * holds every row (partner payloads, sealed secrets), so it is readable by its owner only, made so before a byte
     * is written; pg_dump truncates a file it finds and keeps its permissions.
     */
    static void dump(String pgDump, int port, Path output) throws IOException, InterruptedException {
        ownerOnly(output);
        List<String> command = List.of(
                pgDump,
                "--host",
                "localhost",
                "--port",
                Integer.toString(port),
                "--username",
                "postgres",
                "--dbname",
                "postgres",
                // Restorable by any role into any database: ownership and grants belong to the target system.
                "--no-owner",
                "--no-privileges",
                "--format",
                "plain",
                "--file",
                output.toString());
        Process process;
        try {
            process = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IllegalStateException(
                    "cannot run " + pgDump + " (" + e.getMessage() + "): install PostgreSQL's "
                            + "client tools (Debian: apt-get install postgresql-client) or pass --pg-dump PATH",
                    e);
        }
        String messages = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        if (process.waitFor() != 0) {
            Files.deleteIfExists(output);
            throw new IllegalStateException(pgDump + " failed; nothing was written: " + messages);
        }
    }

    private static void ownerOnly(Path output) throws IOException {
        Set<PosixFilePermission> ownerOnly = PosixFilePermissions.fromString("rw-------");
        try {
            Files.createFile(output, PosixFilePermissions.asFileAttribute(ownerOnly));
        } catch (FileAlreadyExistsException e) {
            Files.setPosixFilePermissions(output, ownerOnly);
        }
    }
}
