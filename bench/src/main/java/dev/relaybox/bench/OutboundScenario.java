package dev.relaybox.bench;

import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.stream.IntStream;

/**
 * Outbound end to end: outbox rows (via {@code Outbox.enqueue}, one transaction each) until the receiver has them,
 * against the bare Temporal ceiling and the hand-rolled SKIP LOCKED poller, each as a burst and paced.
 */
final class OutboundScenario {
    static final String PATH = "/hooks";
    static final String POLLER_PATH = "/poller";
    /** The floor of "one workflow per event" on the engine. */
    static final String FLOOR = "bare eager: no-op workflow + 1 no-op local activity, started eagerly";
    /** Deliveries a second of the quiet paced run. */
    static final double QUIET_RATE = 5;

    private final Context ctx;

    OutboundScenario(Context ctx) {
        this.ctx = ctx;
    }

    static OutboxEvent event(String runId, int index) {
        return new OutboxEvent(
                "bench.delivered",
                "bench",
                runId + "-" + index,
                "{\"orderId\":\"" + runId + "-" + index + "\",\"note\":\"relaybox benchmark\"}");
    }

    void run() throws Exception {
        String scenario = "Outbound end to end";
        Options o = ctx.options;
        Receiver.Tally tally = ctx.receiver.reset(PATH, 200);
        String prefix = ctx.runId + "-out";

        // Warm-up: the JIT, the pools and the worker's caches, for each of the three.
        relaybox(o.warmup, 0, prefix + "w", tally);
        bare(o.warmup, 0, prefix + "w");
        bareLocal(o.warmup, 0, prefix + "w");
        Receiver.Tally pollerTally = ctx.receiver.reset(POLLER_PATH, 200);
        ctx.settle();

        Cpu.Snapshot before = Cpu.now();
        Costs.Snapshot costFrom = Costs.now(ctx);
        Run relaybox = relaybox(o.n, 0, prefix, tally);
        ctx.settle();
        Costs.PerEvent relayboxCost = Costs.between(ctx, costFrom, Costs.now(ctx), o.n);
        String relayboxCpu = Cpu.between(before, Cpu.now());
        before = Cpu.now();
        costFrom = Costs.now(ctx);
        Run bare = bare(o.n, 0, prefix);
        Costs.PerEvent bareCost = Costs.between(ctx, costFrom, Costs.now(ctx), o.n);
        String bareCpu = Cpu.between(before, Cpu.now());
        before = Cpu.now();
        costFrom = Costs.now(ctx);
        Run floor = bareLocal(o.n, 0, prefix);
        Costs.PerEvent floorCost = Costs.between(ctx, costFrom, Costs.now(ctx), o.n);
        String floorCpu = Cpu.between(before, Cpu.now());
        double history = Costs.outboxHistoryEvents(ctx, prefix);
        double bareHistory = Costs.historyEvents(
                ctx, IntStream.range(0, 20).mapToObj(i -> prefix + "-bare-" + i).toList());
        double floorHistory = Costs.historyEvents(
                ctx,
                IntStream.range(0, 20).mapToObj(i -> prefix + "-local-" + i).toList());
        // The poller polls only while its own runs do: its idle queries must not load the others'.
        Poller poller = new Poller(ctx.jdbi(), ctx.receiver.url(POLLER_PATH), List.of(Duration.ofSeconds(1)));
        poller.start(o.pollerThreads);
        poller(o.warmup, 0, prefix + "w", pollerTally);
        before = Cpu.now();
        Run plain = poller(o.n, 0, prefix, pollerTally);
        String pollerCpu = Cpu.between(before, Cpu.now());
        poller.close();

        double half = relaybox.perSecond() / 2;
        int pacedCount = (int) Math.max(50, Math.min(o.n, half * o.pacedDuration.toSeconds()));
        Run relayboxPaced = relaybox(pacedCount, half, prefix + "p", tally);
        ctx.settle();
        Run barePaced = bare(pacedCount, half, prefix + "p");
        Run floorPaced = bareLocal(pacedCount, half, prefix + "p");
        Poller pacedPoller = new Poller(ctx.jdbi(), ctx.receiver.url(POLLER_PATH), List.of(Duration.ofSeconds(1)));
        pacedPoller.start(o.pollerThreads);
        Run plainPaced = poller(pacedCount, half, prefix + "p", pollerTally);
        pacedPoller.close();
        // A quiet system: how long one webhook takes when nothing queues in front of it.
        int quietCount = (int) Math.max(50, QUIET_RATE * o.pacedDuration.toSeconds());
        Run relayboxQuiet = relaybox(quietCount, QUIET_RATE, prefix + "q", tally);
        ctx.settle();
        Run floorQuiet = bareLocal(quietCount, QUIET_RATE, prefix + "q");
        ctx.bareWorkflowsPerSecond = bare.perSecond();
        ctx.bareCost = bareCost;
        ctx.bareHistory = bareHistory;
        ctx.workflowsRun += 3 * (o.warmup + o.n + pacedCount) + 2 * quietCount;

        Report r = ctx.report;
        String vsBare = "bare Temporal: no-op workflow + 1 no-op activity";
        String vsFloor = FLOOR;
        Costs.report(ctx, scenario, relayboxCost, floorCost, history, floorHistory, vsFloor);
        Costs.report(ctx, scenario, relayboxCost, bareCost, history, bareHistory, vsBare);
        String vsPoller = "SKIP LOCKED poller, " + o.pollerThreads + " threads, no Temporal";
        r.metric(scenario, "delivered/s", relaybox.perSecond(), floor.perSecond(), vsFloor);
        r.metric(scenario, "delivered/s", relaybox.perSecond(), bare.perSecond(), vsBare);
        r.metric(scenario, "delivered/s", relaybox.perSecond(), plain.perSecond(), vsPoller);
        for (double p : new double[] {50, 99}) {
            String m = "enqueue→receipt p" + (int) p + " ms, burst of " + o.n;
            r.metric(
                    scenario,
                    m,
                    relaybox.latencies().percentileMs(p),
                    floor.latencies().percentileMs(p),
                    vsFloor);
            r.metric(
                    scenario,
                    m,
                    relaybox.latencies().percentileMs(p),
                    bare.latencies().percentileMs(p),
                    vsBare);
            r.metric(
                    scenario,
                    m,
                    relaybox.latencies().percentileMs(p),
                    plain.latencies().percentileMs(p),
                    vsPoller);
        }
        for (double p : new double[] {50, 99}) {
            // Named by what it is, not by the rate, so that engines with different peaks share a row.
            String m = String.format(Locale.ROOT, "enqueue→receipt p%d ms, paced at half the peak", (int) p);
            r.metric(
                    scenario,
                    m,
                    relayboxPaced.latencies().percentileMs(p),
                    floorPaced.latencies().percentileMs(p),
                    vsFloor);
            r.metric(
                    scenario,
                    m,
                    relayboxPaced.latencies().percentileMs(p),
                    barePaced.latencies().percentileMs(p),
                    vsBare);
            r.metric(
                    scenario,
                    m,
                    relayboxPaced.latencies().percentileMs(p),
                    plainPaced.latencies().percentileMs(p),
                    vsPoller);
        }
        for (double p : new double[] {50, 95, 99}) {
            r.metric(
                    scenario,
                    String.format(Locale.ROOT, "enqueue→receipt p%d ms, paced %.0f/s", (int) p, QUIET_RATE),
                    relayboxQuiet.latencies().percentileMs(p),
                    floorQuiet.latencies().percentileMs(p),
                    vsFloor);
        }
        r.fact(
                scenario,
                "lost / duplicate deliveries",
                (relaybox.failures() + relayboxPaced.failures() + relayboxQuiet.failures()) + " / "
                        + tally.duplicates.get(),
                "0 / 0");
        r.note(
                scenario,
                String.format(
                        Locale.ROOT,
                        "%d outbox rows per run, enqueued by %d producer threads with "
                                + "Outbox.enqueue, one transaction per row, to one endpoint (a JDK HttpServer in the bench answering 200 "
                                + "at once). Rate = rows / (last receipt − first enqueue). Paced runs: %d rows at half Relaybox's burst "
                                + "rate (%.1f a second), for all three; then %d rows at %.0f a second, for Relaybox and the bare eager "
                                + "workflow.",
                        o.n,
                        o.concurrency,
                        pacedCount,
                        half,
                        quietCount,
                        QUIET_RATE));
        r.note(
                scenario,
                "Bare Temporal: workflows started from " + o.concurrency + " threads on their own task queue "
                        + "and worker (same slot counts as Relaybox's), on the same embedded server; receipt = the activity ran. "
                        + "Poller: seed 004's retry table, batches of 100 claimed FOR UPDATE SKIP LOCKED and sent while locked, "
                        + "100 ms sleep when nothing is due.");
        r.note(
                scenario,
                "Relaybox: " + relayboxCpu + ". Bare eager local: " + floorCpu + ". Bare Temporal: " + bareCpu
                        + ". Poller: " + pollerCpu + ".");
    }

    private Run relaybox(int count, double perSecond, String prefix, Receiver.Tally tally) throws Exception {
        return EndToEnd.run(
                ctx,
                "Relaybox deliveries",
                count,
                perSecond,
                i -> ctx.jdbi()
                        .inTransaction(h -> Outbox.enqueue(h, event(prefix, i)))
                        .toString(),
                tally.firstArrival);
    }

    private Run bare(int count, double perSecond, String prefix) throws Exception {
        return bare(count, perSecond, prefix + "-bare-", "bare workflows", ctx.bare()::start);
    }

    private Run bareLocal(int count, double perSecond, String prefix) throws Exception {
        return bare(
                count, perSecond, prefix + "-local-", "bare eager local-activity workflows", ctx.bare()::startLocal);
    }

    private Run bare(int count, double perSecond, String idPrefix, String what, Consumer<String> start)
            throws Exception {
        return EndToEnd.run(
                ctx,
                what,
                count,
                perSecond,
                i -> {
                    String id = idPrefix + i;
                    start.accept(id);
                    return id;
                },
                BareTemporal.TOUCHED);
    }

    private Run poller(int count, double perSecond, String prefix, Receiver.Tally tally) throws Exception {
        return EndToEnd.run(
                ctx,
                "poller deliveries",
                count,
                perSecond,
                i -> {
                    UUID id = UUID.randomUUID();
                    ctx.jdbi()
                            .useTransaction(
                                    h -> Poller.enqueue(h, id, event(prefix, i).payloadJson()));
                    return id.toString();
                },
                tally.firstArrival);
    }
}
