package dev.relaybox.bench;

import dev.relaybox.producer.Outbox;
import io.dropwizard.testing.ConfigOverride;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * What a delivery costs when the roles run as separate processes, as a larger deployment runs them: a Relaybox with
 * {@code roles: api,dispatcher} (its own PostgreSQL and engine) and a worker-only Relaybox from the built jar, against
 * this JVM's Relaybox with all roles, the same outbox rows to the same receiver in the same run. Apart, the dispatcher
 * cannot start a workflow eagerly on a worker of its own process: the first workflow task goes through the engine's
 * matching to the worker process, which plans the delivery itself.
 */
final class SplitRolesScenario {
    static final String TITLE = "Roles in separate processes";

    private final Context ctx;

    SplitRolesScenario(Context ctx) {
        this.ctx = ctx;
    }

    void run() throws Exception {
        Options o = ctx.options;
        if (!ctx.canRunTheJar(TITLE)) {
            return;
        }
        Receiver.Tally tally = ctx.receiver.reset(OutboundScenario.PATH, 200);
        String prefix = ctx.runId + "-roles";
        Measured together = measure(ctx, null, prefix + "-1", tally);

        Path mainDataDirectory = Machine.postgresDataDirectory;
        Path log = o.results.toAbsolutePath().resolve(ctx.runId + "-worker-process.log");
        Measured apart;
        try (Relaybox front = Relaybox.start(
                o.config, ctx.relaybox.engine(), List.of(ConfigOverride.config("roles", "api,dispatcher")))) {
            Context here = new Context(o, front, ctx.receiver, ctx.report, ctx.runId);
            new Admin(front).registerEndpoint(ctx.runId, ctx.receiver.url(OutboundScenario.PATH), "[\"bench.*\"]");
            try (RelayboxProcess worker =
                    RelayboxProcess.start(o.jar, o.config.toAbsolutePath(), RelayboxProcess.workerBeside(front), log)) {
                if (!worker.awaitHealthy(RelayboxProcess.BOOT_LIMIT)) {
                    throw new IllegalStateException("the worker process did not become healthy; see " + log);
                }
                apart = measure(here, worker, prefix + "-2", tally);
            }
        } finally {
            Machine.postgresDataDirectory = mainDataDirectory;
        }
        report(together, apart, tally, log);
    }

    /** One side's burst and quiet run, and what its burst cost per delivery in every process. */
    private record Measured(Run burst, Run quiet, Costs.PerEvent cost, double workerMs, double history) {
        double totalMs() {
            return cost.totalMs() + workerMs;
        }
    }

    private Measured measure(Context here, RelayboxProcess worker, String prefix, Receiver.Tally tally)
            throws Exception {
        Options o = ctx.options;
        deliver(here, o.warmup, 0, prefix + "w", tally);
        Costs.Snapshot from = Costs.now(here);
        double workerFrom = worker == null ? 0 : Cpu.processSeconds(worker.pid());
        Run burst = deliver(here, o.n, 0, prefix, tally);
        Costs.PerEvent cost = Costs.between(here, from, Costs.now(here), o.n);
        double workerMs = worker == null ? 0 : (Cpu.processSeconds(worker.pid()) - workerFrom) * 1000 / o.n;
        int quietCount = (int) Math.max(50, OutboundScenario.QUIET_RATE * o.pacedDuration.toSeconds());
        Run quiet = deliver(here, quietCount, OutboundScenario.QUIET_RATE, prefix + "q", tally);
        double history = Costs.outboxHistoryEvents(here, prefix);
        return new Measured(burst, quiet, cost, workerMs, history);
    }

    private static Run deliver(Context here, int count, double perSecond, String prefix, Receiver.Tally tally)
            throws Exception {
        Run run = EndToEnd.run(
                here,
                "deliveries",
                count,
                perSecond,
                i -> here.jdbi()
                        .inTransaction(h -> Outbox.enqueue(h, OutboundScenario.event(prefix, i)))
                        .toString(),
                tally.firstArrival);
        here.settle();
        return run;
    }

    private void report(Measured together, Measured apart, Receiver.Tally tally, Path log) {
        Report r = ctx.report;
        String baseline = "all roles in one process";
        r.metric(TITLE, "delivered/s", apart.burst.perSecond(), together.burst.perSecond(), baseline);
        for (double p : new double[] {50, 99}) {
            r.metric(
                    TITLE,
                    String.format(Locale.ROOT, "enqueue→receipt p%d ms, burst", (int) p),
                    apart.burst.latencies().percentileMs(p),
                    together.burst.latencies().percentileMs(p),
                    baseline);
            r.metric(
                    TITLE,
                    String.format(
                            Locale.ROOT, "enqueue→receipt p%d ms, paced %.0f/s", (int) p, OutboundScenario.QUIET_RATE),
                    apart.quiet.latencies().percentileMs(p),
                    together.quiet.latencies().percentileMs(p),
                    baseline);
        }
        r.metric(TITLE, "all processes CPU ms/delivery", apart.totalMs(), together.totalMs(), baseline);
        r.metric(TITLE, "worker process CPU ms/delivery", apart.workerMs, Double.NaN, baseline);
        r.metric(TITLE, "bench JVM CPU ms/delivery", apart.cost.jvmMs(), together.cost.jvmMs(), baseline);
        r.metric(TITLE, "engine process CPU ms/delivery", apart.cost.engineMs(), together.cost.engineMs(), baseline);
        r.metric(TITLE, "PostgreSQL commits/delivery", apart.cost.commits(), together.cost.commits(), baseline);
        r.metric(TITLE, "history events/workflow", apart.history, together.history, baseline);
        int lost =
                together.burst.failures() + together.quiet.failures() + apart.burst.failures() + apart.quiet.failures();
        r.fact(TITLE, "lost / duplicate deliveries", lost + " / " + tally.duplicates.get(), "0 / 0");
        r.note(
                TITLE,
                String.format(
                        Locale.ROOT,
                        "%d outbox rows in a burst from %d producer threads, then paced at %.0f a second, each side. "
                                + "Apart: a second Relaybox in this JVM with roles: api,dispatcher (its own "
                                + "embedded PostgreSQL and engine) and %s with RELAYBOX_ROLES=worker against them; "
                                + "the bench JVM's CPU includes this JVM's idle all-roles Relaybox, the producers "
                                + "and the receiver. Worker log: %s.",
                        ctx.options.n,
                        ctx.options.concurrency,
                        OutboundScenario.QUIET_RATE,
                        ctx.options.jar.getFileName(),
                        log.getFileName()));
    }
}
