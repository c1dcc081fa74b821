package dev.relaybox.service.production;

import dev.relaybox.service.ListeningSockets;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * A JVM started as its own OS process with exactly the environment given (nothing inherited), its output
 * in a log file. Closing kills it (SIGKILL with {@link #kill()}, a normal stop otherwise).
 */
final class JavaProcess implements AutoCloseable {
    static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

    private final String name;
    private final Process process;
    private final Path log;

    private JavaProcess(String name, Process process, Path log) {
        this.name = name;
        this.process = process;
        this.log = log;
    }

    static JavaProcess start(String name, Path log, Map<String, String> environment, String... arguments) {
        List<String> command = new ArrayList<>();
        command.add(JAVA.toString());
        // Small heaps, the serial collector and the C1 compiler alone: several of these share a 2-core machine with
        // the build, and none lives long enough to repay C2's compiling.
        command.add("-Xmx384m");
        command.add("-XX:+UseSerialGC");
        command.add("-XX:TieredStopAtLevel=1");
        command.addAll(List.of(arguments));
        ProcessBuilder builder =
                new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().clear();
        builder.environment().putAll(environment);
        try {
            return new JavaProcess(name, builder.start(), log);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot start " + name, e);
        }
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** Waits for the process to end by itself; returns its exit code. */
    int awaitExit(long seconds) throws InterruptedException {
        if (!process.waitFor(seconds, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IllegalStateException(name + " still running after " + seconds + "s:\n" + output());
        }
        return process.exitValue();
    }

    /** The TCP ports this process listens on. */
    Set<Integer> listeningPorts() throws IOException {
        return ListeningSockets.ofProcess(process.pid());
    }

    /** kill -9: no shutdown hook, no graceful stop. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        process.waitFor(30, TimeUnit.SECONDS);
    }

    String output() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no output: " + e + ")";
        }
    }

    String name() {
        return name;
    }

    @Override
    public void close() throws InterruptedException {
        if (process.isAlive()) {
            process.destroy();
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        }
    }
}
