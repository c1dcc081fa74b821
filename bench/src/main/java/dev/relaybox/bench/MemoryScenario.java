package dev.relaybox.bench;

import java.lang.management.ManagementFactory;
import java.util.Locale;

/**
 * Memory with N workflows parked on timers: order.paid for orders that never get created, so each inbox workflow
 * is DEFERRED and waits on its (one hour) recheck timer. Heap is measured after System.gc(); it includes the
 * embedded Temporal server, which runs in this JVM and keeps every execution's state in memory.
 */
final class MemoryScenario {
    private final Context ctx;

    MemoryScenario(Context ctx) {
        this.ctx = ctx;
    }

    /** {@code engineMiB}: the engine's processes ({@link EngineProcesses#memoryMiB}), NaN when it runs in this JVM. */
    record Sample(int waiting, double heapMiB, double rssMiB, double postgresMiB, double engineMiB) {}

    static Sample measure(int waiting, EngineProcesses engine) {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Context.sleep(200);
        }
        double heap = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() / 1024.0 / 1024.0;
        return new Sample(waiting, heap, Machine.rssMiB(), Machine.postgresPssMiB(), engine.memoryMiB());
    }

    void run(Sample atBoot) throws Exception {
        String scenario = "Memory";
        Options o = ctx.options;
        BareTemporal.TOUCHED.clear();
        Sample idle = measure(0, ctx.relaybox.engineProcesses());
        // The server's own count when it can be read; the scenarios' tally otherwise.
        int finished = ctx.probe().map(TestServerProbe::executions).orElse(ctx.workflowsRun);
        String prefix = ctx.runId + "-mem-";
        String like = prefix + "%";
        int sent = 0;
        Report r = ctx.report;
        Sample first = null;
        Sample last = idle;
        for (int size : o.memorySizes) {
            int from = sent;
            Run run = Load.closed(
                    size - from,
                    o.concurrency,
                    () -> ctx.shop.poster(i -> {
                        String order = prefix + (from + i);
                        return new String[] {order + "-paid", Shop.event("order.paid", order)};
                    }));
            sent = size;
            ctx.await(
                    size + " deferred workflows",
                    () -> size
                            - ctx.jdbi()
                                    .withHandle(h -> h.createQuery(
                                                    "SELECT count(*) FROM webhook_inbox WHERE partner_event_id LIKE :like AND status = 'DEFERRED'")
                                            .bind("like", like)
                                            .mapTo(int.class)
                                            .one()));
            // The DEFERRED row is written by the decide activity; give the workflow task that starts the timer a
            // moment.
            Context.sleep(3000);
            Sample s = measure(size, ctx.relaybox.engineProcesses());
            if (run.failures() > 0) {
                r.fact(scenario, "non-200 answers sending " + size, Integer.toString(run.failures()), "0");
            }
            String label = String.format(Locale.ROOT, "%,d waiting workflows", size);
            r.metric(scenario, "heap MiB after GC, " + label, s.heapMiB(), idle.heapMiB(), "same JVM before them");
            r.metric(scenario, "JVM RSS MiB, " + label, s.rssMiB(), idle.rssMiB(), "same JVM before them");
            r.metric(scenario, "PostgreSQL PSS MiB, " + label, s.postgresMiB(), idle.postgresMiB(), "before them");
            r.metric(scenario, "engine process RSS MiB, " + label, s.engineMiB(), idle.engineMiB(), "before them");
            r.metric(
                    scenario,
                    "heap KiB per waiting workflow, " + label,
                    (s.heapMiB() - idle.heapMiB()) * 1024 / size,
                    Double.NaN,
                    "");
            if (first == null) {
                first = s;
            }
            last = s;
        }
        if (first != null && last != first) {
            r.metric(
                    scenario,
                    String.format(Locale.ROOT, "heap KiB per workflow, %,d → %,d", first.waiting(), last.waiting()),
                    (last.heapMiB() - first.heapMiB()) * 1024 / (last.waiting() - first.waiting()),
                    Double.NaN,
                    "");
        }
        if (finished > 0) {
            r.metric(
                    scenario,
                    "heap KiB kept per finished workflow (earlier scenarios)",
                    (idle.heapMiB() - atBoot.heapMiB()) * 1024 / finished,
                    Double.NaN,
                    "");
        }
        r.note(
                scenario,
                String.format(
                        Locale.ROOT,
                        "Heap after boot: %.0f MiB; before this scenario, after about %,d "
                                + "finished workflows: %.0f MiB. The embedded Temporal server (temporal-test-server) runs inside "
                                + "this JVM and keeps every execution, finished or not, in memory, so both its state and "
                                + "Relaybox's worker cache are in these numbers; with an external Temporal they are not. "
                                + "PostgreSQL is a separate process (PSS: shared memory split between its processes).",
                        atBoot.heapMiB(),
                        finished,
                        idle.heapMiB()));
        r.note(
                scenario,
                "Waiting workflows: order.paid for orders never created, each DEFERRED on a one-hour recheck "
                        + "timer (inbox.recheckInterval overridden to 1h). JVM max heap: "
                        + String.format(
                                Locale.ROOT, "%.0f MiB", Runtime.getRuntime().maxMemory() / 1024.0 / 1024.0) + ".");
    }
}
