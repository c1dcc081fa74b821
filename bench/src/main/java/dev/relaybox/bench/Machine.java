package dev.relaybox.bench;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Properties;
import java.util.stream.Stream;

/** What the numbers were measured on. */
final class Machine {
    private Machine() {}

    static Properties versions() {
        Properties p = new Properties();
        try (InputStream in = Machine.class.getResourceAsStream("/relaybox-bench.properties")) {
            if (in != null) {
                p.load(in);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return p;
    }

    static String memory() {
        return procLine("/proc/meminfo", "MemTotal:")
                .map(line -> {
                    long kib = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    return String.format(Locale.ROOT, "%.1f GiB", kib / 1024.0 / 1024.0);
                })
                .orElse("unknown");
    }

    static String cpuModel() {
        return procLine("/proc/cpuinfo", "model name")
                .map(line -> line.substring(line.indexOf(':') + 1).trim())
                .orElse("unknown");
    }

    static String java() {
        return System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version") + " ("
                + System.getProperty("java.vendor") + ")";
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "unknown";
        }
    }

    /** Resident set size of this JVM, in MiB. */
    static double rssMiB() {
        return rssMiB("/proc/self/status");
    }

    /** Resident set size of process {@code pid}, in MiB; NaN when it is gone. */
    static double rssMiB(long pid) {
        return rssMiB("/proc/" + pid + "/status");
    }

    private static double rssMiB(String statusFile) {
        return procLine(statusFile, "VmRSS:")
                .map(line -> Long.parseLong(line.replaceAll("[^0-9]", "")) / 1024.0)
                .orElse(Double.NaN);
    }

    /** The embedded PostgreSQL's data directory once it runs; null with DATABASE_URL. */
    static volatile Path postgresDataDirectory;

    /**
     * The embedded PostgreSQL's processes: the postmaster (pg_ctl detaches it from this JVM, so it is found through
     * its pid file) and its children.
     */
    static List<Long> postgresPids() {
        Path dir = postgresDataDirectory;
        return dir == null ? List.of() : postgresPids(dir);
    }

    /** The processes of the PostgreSQL cluster in {@code dir}: its postmaster and the postmaster's children. */
    static List<Long> postgresPids(Path dir) {
        try {
            long postmaster = Long.parseLong(
                    Files.readAllLines(dir.resolve("postmaster.pid")).get(0).trim());
            List<Long> pids = new ArrayList<>();
            pids.add(postmaster);
            try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
                procs.map(p -> p.getFileName().toString())
                        .filter(n -> n.chars().allMatch(Character::isDigit))
                        .forEach(pid -> {
                            String[] f = stat(Long.parseLong(pid));
                            if (f != null && Long.parseLong(f[1]) == postmaster) {
                                pids.add(Long.parseLong(pid));
                            }
                        });
            }
            return pids;
        } catch (IOException | RuntimeException e) {
            return List.of();
        }
    }

    /** The fields of /proc/PID/stat after the command name (state first), or null when the process is gone. */
    static String[] stat(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        } catch (IOException | RuntimeException gone) {
            return null;
        }
    }

    /** Proportional set size of the embedded PostgreSQL's processes, in MiB (shared buffers split between them). */
    static double postgresPssMiB() {
        Path dir = postgresDataDirectory;
        return dir == null ? 0 : postgresPssMiB(dir);
    }

    /** Proportional set size of the processes of the PostgreSQL cluster in {@code dir}, in MiB. */
    static double postgresPssMiB(Path dir) {
        return postgresPids(dir).stream()
                .mapToDouble(pid -> {
                    try {
                        return Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps_rollup")).stream()
                                .filter(l -> l.startsWith("Pss:"))
                                .findFirst()
                                .map(l -> Long.parseLong(l.replaceAll("[^0-9]", "")) / 1024.0)
                                .orElse(0.0);
                    } catch (IOException | RuntimeException gone) {
                        return 0;
                    }
                })
                .sum();
    }

    private static Optional<String> procLine(String file, String prefix) {
        try {
            return Files.readAllLines(Path.of(file)).stream()
                    .filter(l -> l.startsWith(prefix))
                    .findFirst();
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
