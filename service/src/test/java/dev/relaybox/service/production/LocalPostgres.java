package dev.relaybox.service.production;

import dev.relaybox.service.ComposeFile;
import dev.relaybox.service.TestApp;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway PostgreSQL server from the machine's own binaries (Debian's {@code postgresql} package), in a
 * temporary directory on a free port, set up by docker/postgres/init.sql as the compose file's container is.
 * Runs as the {@code postgres} user when the test runs as root, since the server refuses to run as root.
 */
final class LocalPostgres implements AutoCloseable {
    static final String RELAYBOX_PASSWORD = "relaybox-it-password";
    private static final Path INIT_SQL = ComposeFile.REPO.resolve("docker/postgres/init.sql");

    private final Path bin;
    private final Path directory;
    private final Path logs;
    private final int port;

    private LocalPostgres(Path bin, Path directory, Path logs, int port) {
        this.bin = bin;
        this.directory = directory;
        this.logs = logs;
        this.port = port;
    }

    /** The newest installed server's bin directory, e.g. /usr/lib/postgresql/15/bin. */
    static Optional<Path> binaries() {
        Path root = Path.of("/usr/lib/postgresql");
        if (!Files.isDirectory(root)) {
            return Optional.empty();
        }
        try (Stream<Path> versions = Files.list(root)) {
            return versions.map(version -> version.resolve("bin"))
                    .filter(bin ->
                            Files.isExecutable(bin.resolve("initdb")) && Files.isExecutable(bin.resolve("pg_ctl")))
                    .max(Comparator.comparing(bin -> Integer.parseInt(
                            bin.getParent().getFileName().toString().replaceAll("\\D", "0"))));
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    static LocalPostgres start(Path bin, Path logs) throws Exception {
        Path directory = Files.createTempDirectory("relaybox-it-pg");
        int port = TestApp.freePort();
        LocalPostgres postgres = new LocalPostgres(bin, directory, logs, port);
        if (asRoot()) {
            run(logs.resolve("chown.log"), null, "chown", "-R", "postgres:postgres", directory.toString());
        }
        Path data = directory.resolve("data");
        postgres.runAsPostgres(
                logs.resolve("initdb.log"),
                Map.of(),
                bin.resolve("initdb").toString(),
                "-D",
                data.toString(),
                "-U",
                "postgres",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                "--encoding=UTF8");
        postgres.runAsPostgres(
                logs.resolve("pg_ctl-start.log"),
                Map.of(),
                bin.resolve("pg_ctl").toString(),
                "-D",
                data.toString(),
                "-l",
                directory.resolve("server.log").toString(),
                "-w",
                "-t",
                "60",
                "-o",
                "-p " + port + " -k " + directory + " -c listen_addresses=127.0.0.1",
                "start");
        // docker/postgres/init.sql, as the image's entrypoint runs it on a fresh volume.
        postgres.runAsPostgres(
                logs.resolve("init-sql.log"),
                INIT_SQL,
                Map.of("RELAYBOX_DB_PASSWORD", RELAYBOX_PASSWORD, "TEMPORAL_DB_PASSWORD", "temporal-it-password"),
                bin.resolve("psql").toString(),
                "-h",
                directory.toString(),
                "-p",
                Integer.toString(port),
                "-U",
                "postgres",
                "-d",
                "postgres",
                "-v",
                "ON_ERROR_STOP=1",
                "-q",
                "-f",
                "-");
        return postgres;
    }

    int port() {
        return port;
    }

    String jdbcUrl() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/relaybox";
    }

    /** The server's own log, for a failure message. */
    String serverLog() {
        try {
            return Files.readString(directory.resolve("server.log"));
        } catch (IOException e) {
            return "(no server log: " + e + ")";
        }
    }

    @Override
    public void close() throws Exception {
        try {
            runAsPostgres(
                    logs.resolve("pg_ctl-stop.log"),
                    Map.of(),
                    bin.resolve("pg_ctl").toString(),
                    "-D",
                    directory.resolve("data").toString(),
                    "-m",
                    "immediate",
                    "-w",
                    "stop");
        } finally {
            try (Stream<Path> files = Files.walk(directory)) {
                files.sorted(Comparator.reverseOrder())
                        .forEach(path -> path.toFile().delete());
            }
        }
    }

    private void runAsPostgres(Path log, Map<String, String> environment, String... command) throws Exception {
        runAsPostgres(log, null, environment, command);
    }

    private void runAsPostgres(Path log, Path input, Map<String, String> environment, String... command)
            throws Exception {
        List<String> full = new ArrayList<>();
        if (asRoot()) {
            full.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        full.add("env");
        environment.forEach((name, value) -> full.add(name + "=" + value));
        full.addAll(List.of(command));
        run(log, input, full.toArray(String[]::new));
    }

    private static void run(Path log, Path input, String... command) throws Exception {
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        if (input != null) {
            builder.redirectInput(input.toFile());
        }
        Process process = builder.start();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            throw new IllegalStateException(String.join(" ", command) + " did not finish in 2 minutes");
        }
        if (process.exitValue() != 0) {
            throw new IllegalStateException(
                    String.join(" ", command) + " exited with " + process.exitValue() + ":\n" + Files.readString(log));
        }
    }

    private static boolean asRoot() {
        return "root".equals(System.getProperty("user.name"));
    }
}
