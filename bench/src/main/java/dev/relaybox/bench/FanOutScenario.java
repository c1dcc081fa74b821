package dev.relaybox.bench;

import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Outbound with {@value #ENDPOINTS} endpoints per event: each outbox row fans out to ten subscribed endpoints (ten
 * paths of the bench's receiver); an event has arrived when all ten have it. Compared with the bare Temporal ceiling
 * (one no-op activity per workflow) measured in the same scenario.
 */
final class FanOutScenario {
    static final int ENDPOINTS = 10;
    private static final String TITLE = "Outbound fan-out";

    private final Context ctx;

    FanOutScenario(Context ctx) {
        this.ctx = ctx;
    }

    void run() throws Exception {
        Options o = ctx.options;
        Admin admin = new Admin(ctx.relaybox);
        List<Receiver.Tally> tallies = new ArrayList<>();
        List<String> endpointIds = new ArrayList<>();
        for (int i = 0; i < ENDPOINTS; i++) {
            String path = "/fan/" + i;
            tallies.add(ctx.receiver.reset(path, 200));
            endpointIds.add(admin.registerEndpoint(ctx.runId + "-fan-" + i, ctx.receiver.url(path), "[\"fanout.*\"]"));
        }
        Map<String, Long> allArrived = new AllArrived(tallies);
        int events = Math.max(10, o.n / ENDPOINTS);
        String prefix = ctx.runId + "-fan";
        try {
            relaybox(Math.max(5, o.warmup / ENDPOINTS), prefix + "w", allArrived);
            ctx.settle();
            Cpu.Snapshot before = Cpu.now();
            Run fanOut = relaybox(events, prefix, allArrived);
            String cpu = Cpu.between(before, Cpu.now());
            ctx.settle();
            BareTemporal bare = ctx.bare();
            Run bareRun = EndToEnd.run(
                    ctx,
                    "bare workflows",
                    o.n,
                    0,
                    i -> {
                        String id = prefix + "-bare-" + i;
                        bare.start(id);
                        return id;
                    },
                    BareTemporal.TOUCHED);
            ctx.workflowsRun += events + o.n;

            Report r = ctx.report;
            double deliveries = fanOut.perSecond() * ENDPOINTS;
            r.metric(
                    TITLE,
                    "deliveries/s (" + ENDPOINTS + " per event)",
                    deliveries,
                    bareRun.perSecond(),
                    "bare Temporal: no-op workflow + 1 no-op activity");
            r.metric(TITLE, "events/s (all " + ENDPOINTS + " endpoints reached)", fanOut.perSecond(), Double.NaN, "");
            r.metric(TITLE, "enqueue→last receipt p50 ms", fanOut.latencies().percentileMs(50), Double.NaN, "");
            r.metric(TITLE, "enqueue→last receipt p99 ms", fanOut.latencies().percentileMs(99), Double.NaN, "");
            int duplicates = tallies.stream().mapToInt(t -> t.duplicates.get()).sum();
            r.fact(TITLE, "lost events / duplicate deliveries", fanOut.failures() + " / " + duplicates, "0 / 0");
            r.note(
                    TITLE,
                    String.format(
                            Locale.ROOT,
                            "%d outbox rows enqueued by %d producer threads with Outbox.enqueue, "
                                    + "each subscribed by %d endpoints (%d deliveries); the bare baseline runs %d workflows, one "
                                    + "activity each. %s.",
                            events,
                            o.concurrency,
                            ENDPOINTS,
                            events * ENDPOINTS,
                            o.n,
                            cpu));
        } finally {
            for (String id : endpointIds) {
                admin.disableEndpoint(id);
            }
        }
    }

    private Run relaybox(int count, String prefix, Map<String, Long> arrivals) throws Exception {
        return EndToEnd.run(
                ctx,
                "fan-out events",
                count,
                0,
                i -> ctx.jdbi()
                        .inTransaction(h -> Outbox.enqueue(
                                h,
                                new OutboxEvent(
                                        "fanout.delivered",
                                        "bench",
                                        prefix + "-" + i,
                                        "{\"orderId\":\"" + prefix + "-" + i
                                                + "\",\"note\":\"relaybox benchmark fan-out\"}")))
                        .toString(),
                arrivals);
    }

    /** An event's arrival: when the last of the endpoints first received it; absent until all have. */
    private static final class AllArrived extends AbstractMap<String, Long> {
        private final List<Receiver.Tally> tallies;

        AllArrived(List<Receiver.Tally> tallies) {
            this.tallies = tallies;
        }

        @Override
        public Long get(Object key) {
            long last = Long.MIN_VALUE;
            for (Receiver.Tally tally : tallies) {
                Long at = tally.firstArrival.get(key);
                if (at == null) {
                    return null;
                }
                last = Math.max(last, at);
            }
            return last;
        }

        @Override
        public boolean containsKey(Object key) {
            return get(key) != null;
        }

        @Override
        public Set<Entry<String, Long>> entrySet() {
            throw new UnsupportedOperationException("looked up by key only");
        }
    }
}
