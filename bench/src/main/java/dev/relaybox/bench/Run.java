package dev.relaybox.bench;

/** One measured run: how many items in how long, their latencies, and what went wrong. */
record Run(int items, long nanos, Latencies latencies, int failures) {
    double perSecond() {
        return items / (nanos / 1e9);
    }

    double seconds() {
        return nanos / 1e9;
    }
}
