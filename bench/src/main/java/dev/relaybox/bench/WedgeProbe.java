package dev.relaybox.bench;

import java.lang.management.LockInfo;
import java.lang.management.ManagementFactory;
import java.lang.management.MonitorInfo;
import java.lang.management.ThreadInfo;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Many threads starting bare workflows at once against the embedded Temporal server, watched for a stall: when
 * neither starts nor completions move for 30 s, every thread's full stack and locks are written to a file.
 */
final class WedgeProbe {
    private static final long STALL_NANOS = 30_000_000_000L;

    private WedgeProbe() {}

    static void run(Context ctx, Path dumpFile) throws Exception {
        Options o = ctx.options;
        BareTemporal bare = ctx.bare();
        String prefix = ctx.runId + "-wedge-";
        AtomicInteger next = new AtomicInteger();
        AtomicInteger started = new AtomicInteger();
        AtomicInteger failed = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(o.wedgeThreads);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < o.wedgeThreads; t++) {
            futures.add(pool.submit(() -> {
                go.await();
                for (int i = next.getAndIncrement(); i < o.wedgeN; i = next.getAndIncrement()) {
                    try {
                        bare.start(prefix + i);
                        started.incrementAndGet();
                    } catch (RuntimeException e) {
                        if (failed.incrementAndGet() <= 5) {
                            System.out.println("  start failed: " + e);
                        }
                    }
                }
                return null;
            }));
        }
        long began = System.nanoTime();
        go.countDown();
        long lastProgress = began;
        int lastSeen = -1;
        boolean wedged = false;
        while (true) {
            int done = (int) BareTemporal.TOUCHED.keySet().stream()
                    .filter(k -> k.startsWith(prefix))
                    .count();
            int seen = started.get() + failed.get() + done;
            long now = System.nanoTime();
            if (seen != lastSeen) {
                lastSeen = seen;
                lastProgress = now;
            }
            if (done + failed.get() >= o.wedgeN) {
                break;
            }
            if (now - lastProgress > STALL_NANOS) {
                wedged = true;
                Files.writeString(dumpFile, threadDump());
                System.out.printf(
                        Locale.ROOT,
                        "  WEDGED: %d started, %d failed, %d completed; no progress for 30 s; "
                                + "threads in %s (pid %d)%n",
                        started.get(),
                        failed.get(),
                        done,
                        dumpFile,
                        ProcessHandle.current().pid());
                break;
            }
            System.out.printf(
                    Locale.ROOT,
                    "  %5.1f s: %d started, %d failed, %d completed; %s%n",
                    (now - began) / 1e9,
                    started.get(),
                    failed.get(),
                    done,
                    ctx.serverState());
            Context.sleep(1000);
        }
        double seconds = (System.nanoTime() - began) / 1e9;
        pool.shutdownNow();
        pool.awaitTermination(5, TimeUnit.SECONDS);
        int done = (int) BareTemporal.TOUCHED.keySet().stream()
                .filter(k -> k.startsWith(prefix))
                .count();
        Report r = ctx.report;
        String scenario = "Start storm (wedge probe)";
        r.fact(
                scenario,
                o.wedgeN + " starts from " + o.wedgeThreads + " threads",
                wedged ? "WEDGED" : "completed",
                "completed");
        r.fact(scenario, "started / failed / completed", started.get() + " / " + failed.get() + " / " + done, "–");
        r.metric(scenario, "completed/s", done / seconds, Double.NaN, "");
        if (wedged) {
            r.note(scenario, "Thread dump: " + dumpFile.getFileName());
        }
    }

    /** Like jstack: every thread with its whole stack, the monitors it holds and what it waits for. */
    static String threadDump() {
        StringBuilder out = new StringBuilder();
        for (ThreadInfo t : ManagementFactory.getThreadMXBean().dumpAllThreads(true, true)) {
            out.append('"')
                    .append(t.getThreadName())
                    .append("\" #")
                    .append(t.getThreadId())
                    .append(' ')
                    .append(t.getThreadState());
            if (t.getLockName() != null) {
                out.append(" on ").append(t.getLockName());
            }
            if (t.getLockOwnerName() != null) {
                out.append(" owned by \"")
                        .append(t.getLockOwnerName())
                        .append("\" #")
                        .append(t.getLockOwnerId());
            }
            out.append('\n');
            StackTraceElement[] stack = t.getStackTrace();
            for (int i = 0; i < stack.length; i++) {
                out.append("\tat ").append(stack[i]).append('\n');
                for (MonitorInfo m : t.getLockedMonitors()) {
                    if (m.getLockedStackDepth() == i) {
                        out.append("\t- locked ").append(m).append('\n');
                    }
                }
            }
            LockInfo[] synchronizers = t.getLockedSynchronizers();
            if (synchronizers.length > 0) {
                out.append("\tLocked synchronizers:\n");
                for (LockInfo l : synchronizers) {
                    out.append("\t- ").append(l).append('\n');
                }
            }
            out.append('\n');
        }
        long[] deadlocked = ManagementFactory.getThreadMXBean().findDeadlockedThreads();
        out.append("Deadlocked threads: ")
                .append(deadlocked == null ? "none" : deadlocked.length)
                .append('\n');
        return out.toString();
    }
}
