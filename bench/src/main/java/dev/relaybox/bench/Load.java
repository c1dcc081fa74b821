package dev.relaybox.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Supplier;

/**
 * Drives operations from a fixed number of threads: closed loop (each thread sends as soon as its previous call
 * answered: the peak rate) or paced (an open-loop schedule at a fixed rate, latency counted from the moment a call
 * was due, so a stall shows up in the percentiles instead of silently slowing the schedule).
 */
final class Load {
    private Load() {}

    /** One thread's client: an HTTP client, a JDBC connection. Answers whether the call succeeded. */
    interface Worker extends AutoCloseable {
        boolean call(int index) throws Exception;

        @Override
        default void close() throws Exception {}
    }

    static Run closed(int count, int threads, Supplier<Worker> workers) throws Exception {
        return run(count, threads, 0, workers);
    }

    static Run paced(int count, int threads, double perSecond, Supplier<Worker> workers) throws Exception {
        return run(count, threads, perSecond, workers);
    }

    private static Run run(int count, int threads, double perSecond, Supplier<Worker> workers) throws Exception {
        Latencies latencies = new Latencies(count);
        AtomicInteger next = new AtomicInteger();
        AtomicInteger failures = new AtomicInteger();
        ExecutorService pool = Executors.newFixedThreadPool(threads, r -> {
            Thread t = new Thread(r, "bench-load");
            t.setDaemon(true);
            return t;
        });
        List<Worker> opened = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            opened.add(workers.get());
        }
        long intervalNanos = perSecond > 0 ? (long) (1e9 / perSecond) : 0;
        long start = System.nanoTime();
        List<Future<?>> futures = new ArrayList<>();
        for (Worker worker : opened) {
            futures.add(pool.submit(() -> {
                for (int i = next.getAndIncrement(); i < count; i = next.getAndIncrement()) {
                    long due = start + i * intervalNanos;
                    long now = System.nanoTime();
                    if (intervalNanos > 0 && due > now) {
                        LockSupport.parkNanos(due - now);
                    }
                    long began = intervalNanos > 0 ? due : System.nanoTime();
                    boolean ok;
                    try {
                        ok = worker.call(i);
                    } catch (Exception e) {
                        ok = false;
                    }
                    latencies.add(System.nanoTime() - began);
                    if (!ok) {
                        failures.incrementAndGet();
                    }
                }
                return null;
            }));
        }
        for (Future<?> f : futures) {
            f.get();
        }
        long elapsed = System.nanoTime() - start;
        pool.shutdown();
        pool.awaitTermination(10, TimeUnit.SECONDS);
        for (Worker worker : opened) {
            worker.close();
        }
        return new Run(count, elapsed, latencies, failures.get());
    }
}
