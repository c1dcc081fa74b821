package dev.relaybox.service.production;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

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

    /**
     * The TCP ports this process listens on, read from Linux's procfs: its socket descriptors matched to the kernel's
     * listening sockets. Probing a port from outside cannot tell this process from another that took the port since.
     */
    Set<Integer> listeningPorts() throws IOException {
        Set<String> sockets = new HashSet<>();
        try (Stream<Path> descriptors = Files.list(Path.of("/proc", Long.toString(process.pid()), "fd"))) {
            for (Path descriptor : (Iterable<Path>) descriptors::iterator) {
                try {
                    String target = Files.readSymbolicLink(descriptor).toString();
                    if (target.startsWith("socket:[")) {
                        sockets.add(target.substring("socket:[".length(), target.length() - 1));
                    }
                } catch (IOException closedMeanwhile) {
                    // the descriptor went away while listed: it is not a listening socket now
                }
            }
        }
        Set<Integer> ports = new TreeSet<>();
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            // sl local_address rem_address st ... inode: state 0A is LISTEN, the port is hex after the colon.
            List<String> lines = Files.readAllLines(Path.of(table));
            for (String line : lines.subList(1, lines.size())) {
                String[] fields = line.trim().split("\\s+");
                if (fields[3].equals("0A") && sockets.contains(fields[9])) {
                    String local = fields[1];
                    ports.add(Integer.parseInt(local.substring(local.indexOf(':') + 1), 16));
                }
            }
        }
        return ports;
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
