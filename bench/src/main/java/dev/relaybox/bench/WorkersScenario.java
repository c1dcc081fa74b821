package dev.relaybox.bench;

import dev.relaybox.producer.Outbox;
import java.nio.file.Path;
import java.util.Locale;

/**
 * The sizing model's check on one machine: outbound deliveries a second with one worker process, then with a second
 * worker process from the built jar ({@code RELAYBOX_ROLES=worker}) beside this JVM's Relaybox, against the same
 * engine and database. The model says a delivery costs its CPU in the worker, the engine and PostgreSQL; on cores
 * that all three share, a second worker can only move the rate when the first was not using them up.
 */
final class WorkersScenario {
    static final String TITLE = "Worker processes";

    private final Context ctx;

    WorkersScenario(Context ctx) {
        this.ctx = ctx;
    }

    void run() throws Exception {
        Options o = ctx.options;
        if (!ctx.canRunTheJar(TITLE)) {
            return;
        }
        Receiver.Tally tally = ctx.receiver.reset(OutboundScenario.PATH, 200);
        String prefix = ctx.runId + "-workers";
        deliver(o.warmup, prefix + "-w1", tally);
        Measured one = measure(o.n, prefix + "-1", tally);

        Path log = o.results.toAbsolutePath().resolve(ctx.runId + "-second-worker.log");
        try (RelayboxProcess second = RelayboxProcess.start(
                o.jar, o.config.toAbsolutePath(), RelayboxProcess.workerBeside(ctx.relaybox), log)) {
            if (!second.awaitHealthy(RelayboxProcess.BOOT_LIMIT)) {
                throw new IllegalStateException("the second worker did not become healthy; see " + log);
            }
            deliver(o.warmup, prefix + "-w2", tally);
            Measured two = measure(o.n, prefix + "-2", tally);

            Report r = ctx.report;
            r.metric(TITLE, "delivered/s, 2 workers vs 1", two.perSecond, one.perSecond, "1 worker process");
            r.metric(TITLE, "machine CPU busy (cores), 2 workers vs 1", two.busyCores, one.busyCores, "1 worker");
            r.metric(TITLE, "model's ceiling, deliveries/s (cores / CPU s per delivery)", one.ceiling, Double.NaN, "");
            r.note(
                    TITLE,
                    String.format(
                            Locale.ROOT,
                            "%d outbox rows each time, the bench's endpoint. One worker: this JVM's Relaybox (all "
                                    + "roles), %s. Two: the same plus %s with RELAYBOX_ROLES=worker against the same "
                                    + "PostgreSQL and engine, %s. The ceiling divides the machine's %d cores by the CPU "
                                    + "seconds one delivery took with one worker (every process on the machine). Log: %s.",
                            o.n,
                            one.cpu,
                            o.jar.getFileName(),
                            two.cpu,
                            Runtime.getRuntime().availableProcessors(),
                            log.getFileName()));
        }
    }

    private record Measured(double perSecond, double busyCores, double ceiling, String cpu) {}

    private Measured measure(int count, String prefix, Receiver.Tally tally) throws Exception {
        Cpu.Snapshot from = Cpu.now();
        Run run = deliver(count, prefix, tally);
        Cpu.Snapshot to = Cpu.now();
        double wall = (to.wallNanos() - from.wallNanos()) / 1e9;
        double busySeconds = to.machineBusySeconds() - from.machineBusySeconds();
        double ceiling = Runtime.getRuntime().availableProcessors() / (busySeconds / count);
        return new Measured(run.perSecond(), busySeconds / wall, ceiling, Cpu.between(from, to));
    }

    private Run deliver(int count, String prefix, Receiver.Tally tally) throws Exception {
        Run run = EndToEnd.run(
                ctx,
                "deliveries",
                count,
                0,
                i -> ctx.jdbi()
                        .inTransaction(h -> Outbox.enqueue(h, OutboundScenario.event(prefix, i)))
                        .toString(),
                tally.firstArrival);
        ctx.settle();
        return run;
    }
}
