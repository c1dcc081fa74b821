package dev.relaybox.bench;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Measures "enqueued until it arrived": producers hand work to a system from several threads, and the arrival map
 * (the receiver's, or the bare activity's) says when each key got to the other end.
 */
final class EndToEnd {
    private EndToEnd() {}

    /** Hands item {@code index} to the system under test; returns the key its arrival is recorded under. */
    interface Producer {
        String produce(int index) throws Exception;
    }

    /** Burst ({@code perSecond} 0) or paced; waits for every key to arrive, or until the context's limit. */
    static Run run(Context ctx, String what, int count, double perSecond, Producer producer, Map<String, Long> arrivals)
            throws Exception {
        Map<String, Long> sent = new ConcurrentHashMap<>();
        Load.Worker worker = index -> {
            long at = System.nanoTime();
            sent.put(producer.produce(index), at);
            return true;
        };
        if (perSecond > 0) {
            Load.paced(count, ctx.options.concurrency, perSecond, () -> worker);
        } else {
            Load.closed(count, ctx.options.concurrency, () -> worker);
        }
        ctx.await(what, () -> (int)
                sent.keySet().stream().filter(k -> !arrivals.containsKey(k)).count());
        Latencies latencies = new Latencies(count);
        long first = Long.MAX_VALUE;
        long last = Long.MIN_VALUE;
        int missing = 0;
        for (Map.Entry<String, Long> e : sent.entrySet()) {
            first = Math.min(first, e.getValue());
            Long arrived = arrivals.get(e.getKey());
            if (arrived == null) {
                missing++;
                continue;
            }
            last = Math.max(last, arrived);
            latencies.add(arrived - e.getValue());
        }
        return new Run(count - missing, last - first, latencies, missing);
    }
}
