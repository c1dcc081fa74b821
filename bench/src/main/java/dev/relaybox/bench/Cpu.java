package dev.relaybox.bench;

import com.sun.management.OperatingSystemMXBean;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;

/**
 * Where the CPU went during a run: this JVM (Relaybox, the embedded Temporal server and the load generators),
 * the PostgreSQL processes it started, and everything else on the machine (another workload skews results).
 */
final class Cpu {
    private static final double TICKS_PER_SECOND = 100.0;

    record Snapshot(long wallNanos, double jvmSeconds, double postgresSeconds, double machineBusySeconds) {}

    static Snapshot now() {
        return new Snapshot(System.nanoTime(), jvmSeconds(), postgresSeconds(), machineBusySeconds());
    }

    /** "JVM 1.52, PostgreSQL 0.31, other 0.05 of 2 cores" between two snapshots. */
    static String between(Snapshot from, Snapshot to) {
        double wall = (to.wallNanos() - from.wallNanos()) / 1e9;
        if (wall <= 0) {
            return "";
        }
        double jvm = (to.jvmSeconds() - from.jvmSeconds()) / wall;
        double pg = (to.postgresSeconds() - from.postgresSeconds()) / wall;
        double busy = (to.machineBusySeconds() - from.machineBusySeconds()) / wall;
        double other = Math.max(0, busy - jvm - pg);
        return String.format(
                Locale.ROOT,
                "CPU in use (cores): JVM %.2f, PostgreSQL %.2f, other processes %.2f, of %d",
                jvm,
                pg,
                other,
                Runtime.getRuntime().availableProcessors());
    }

    static double jvmSeconds() {
        var os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof OperatingSystemMXBean sun) {
            return sun.getProcessCpuTime() / 1e9;
        }
        return 0;
    }

    /** The embedded PostgreSQL's processes, including backends that already exited (the postmaster's cutime). */
    static double postgresSeconds() {
        return Machine.postgresPids().stream().mapToDouble(Cpu::processSeconds).sum();
    }

    /** CPU seconds of process {@code pid} and of its children that exited (cutime, cstime); 0 when it is gone. */
    static double processSeconds(long pid) {
        String[] f = Machine.stat(pid);
        // state(0) ppid(1) ... utime(11) stime(12) cutime(13) cstime(14)
        return f == null
                ? 0
                : (Long.parseLong(f[11]) + Long.parseLong(f[12]) + Long.parseLong(f[13]) + Long.parseLong(f[14]))
                        / TICKS_PER_SECOND;
    }

    private static double machineBusySeconds() {
        try {
            String[] f = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long total = 0;
            for (int i = 1; i < Math.min(f.length, 9); i++) {
                total += Long.parseLong(f[i]);
            }
            long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
            return (total - idle) / TICKS_PER_SECOND;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
