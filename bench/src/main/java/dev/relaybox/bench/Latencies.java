package dev.relaybox.bench;

import java.util.Arrays;
import java.util.concurrent.atomic.AtomicInteger;

/** Latency samples in nanoseconds, recorded from many threads, summarised as percentiles in milliseconds. */
final class Latencies {
    private final long[] samples;
    private final AtomicInteger count = new AtomicInteger();
    private long[] sorted;

    Latencies(int capacity) {
        samples = new long[capacity];
    }

    void add(long nanos) {
        int i = count.getAndIncrement();
        if (i < samples.length) {
            samples[i] = nanos;
        }
    }

    int count() {
        return Math.min(count.get(), samples.length);
    }

    double percentileMs(double p) {
        long[] s = sorted();
        if (s.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(p / 100.0 * s.length) - 1;
        return s[Math.max(0, Math.min(s.length - 1, index))] / 1e6;
    }

    double maxMs() {
        long[] s = sorted();
        return s.length == 0 ? Double.NaN : s[s.length - 1] / 1e6;
    }

    private synchronized long[] sorted() {
        if (sorted == null || sorted.length != count()) {
            sorted = Arrays.copyOf(samples, count());
            Arrays.sort(sorted);
        }
        return sorted;
    }
}
