package dev.relaybox.service.temporal;

import static org.assertj.core.api.Assertions.fail;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.LoggerFactory;

/**
 * Debian's nginx as a child process: its own config, pid file, logs and temp paths in one directory, in the
 * foreground, stopped by {@link #close()}. Tests that need it skip without it, except in CI where they fail.
 */
final class NginxProcess implements AutoCloseable {
    private final Process process;
    private final Path dir;

    private NginxProcess(Process process, Path dir) {
        this.process = process;
        this.dir = dir;
    }

    /** The nginx binary; skips the calling test when there is none, or fails it when env CI is true. */
    static Path binaryOrSkip() {
        Optional<Path> binary = Stream.concat(
                        Stream.of(System.getenv().getOrDefault("PATH", "").split(":"))
                                .map(Path::of),
                        Stream.of(Path.of("/usr/sbin")))
                .map(directory -> directory.resolve("nginx"))
                .filter(Files::isExecutable)
                .findFirst();
        if (binary.isEmpty()) {
            String reason = "nginx is not installed (Debian: apt-get install nginx; .ci/run installs it)";
            if ("true".equals(System.getenv("CI"))) {
                fail(reason + ", and CI must run the TLS tests");
            }
            // Surefire does not show why a whole class was skipped, so say it in the build output too.
            LoggerFactory.getLogger(NginxProcess.class).warn("{}: skipping the TLS proxy tests", reason);
            Assumptions.abort(reason + ": skipping the TLS proxy tests");
        }
        return binary.get();
    }

    /**
     * Starts nginx with {@code httpBlock} as the body of its {@code http} section and waits until every port in
     * {@code ports} accepts connections.
     */
    static NginxProcess start(Path binary, Path dir, String httpBlock, List<Integer> ports) throws IOException {
        // As root the workers would run as nobody, who cannot enter the private temp directory.
        String user = "root".equals(System.getProperty("user.name")) ? "user root;\n" : "";
        String config = user + """
                worker_processes 1;
                pid %1$s/nginx.pid;
                error_log %1$s/error.log info;
                events { worker_connections 64; }
                http {
                    access_log %1$s/access.log;
                    client_body_temp_path %1$s/client_body;
                    proxy_temp_path %1$s/proxy;
                    fastcgi_temp_path %1$s/fastcgi;
                    uwsgi_temp_path %1$s/uwsgi;
                    scgi_temp_path %1$s/scgi;
                %2$s
                }
                """.formatted(dir, httpBlock);
        Path configFile = Files.writeString(dir.resolve("nginx.conf"), config);
        Process process = new ProcessBuilder(
                        binary.toString(),
                        "-p",
                        dir.toString(),
                        "-c",
                        configFile.toString(),
                        "-e",
                        dir.resolve("error.log").toString(),
                        "-g",
                        "daemon off;")
                .redirectErrorStream(true)
                .redirectOutput(dir.resolve("nginx.out").toFile())
                .start();
        NginxProcess nginx = new NginxProcess(process, dir);
        try {
            await().atMost(Duration.ofSeconds(30)).until(() -> {
                if (!process.isAlive()) {
                    throw new IllegalStateException("nginx exited with " + process.exitValue() + ":\n"
                            + nginx.errorLog() + Files.readString(dir.resolve("nginx.out")));
                }
                return ports.stream().allMatch(NginxProcess::accepts);
            });
        } catch (RuntimeException e) {
            nginx.close();
            throw e;
        }
        return nginx;
    }

    String errorLog() {
        try {
            Path log = dir.resolve("error.log");
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A position in the error log, to read only what one test caused. */
    int errorLogMark() {
        return errorLog().length();
    }

    String errorLogSince(int mark) {
        return errorLog().substring(mark);
    }

    private static boolean accepts(int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    @Override
    public void close() {
        // SIGTERM: the master stops its workers and exits.
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
