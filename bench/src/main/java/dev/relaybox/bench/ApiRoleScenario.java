package dev.relaybox.bench;

import io.dropwizard.testing.ConfigOverride;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * The intake alone: a second Relaybox booted in this run with {@code roles: api} (RELAYBOX_ROLES=api, no dispatcher
 * and no worker, so accepted rows wait for a worker that is not there), posted to from wrk in its own process,
 * against the raw JDBC insert of the same rows into the same database at the same concurrency.
 */
final class ApiRoleScenario {
    static final String TITLE = "API role alone";

    private final Context ctx;

    ApiRoleScenario(Context ctx) {
        this.ctx = ctx;
    }

    void run() throws Exception {
        if (!ctx.relaybox.embeddedDatabase()) {
            ctx.report.fact(TITLE, "skipped", "only with the embedded PostgreSQL (its rows are never processed)", "–");
            return;
        }
        Options o = ctx.options;
        int c = o.concurrency;
        Path mainDataDirectory = Machine.postgresDataDirectory;
        InboxScenarios.Peak peak;
        Run raw;
        String peakCpu;
        String rawCpu;
        try (Relaybox api =
                Relaybox.start(o.config, ctx.relaybox.engine(), List.of(ConfigOverride.config("roles", "api")))) {
            Context apiCtx = new Context(o, api, ctx.receiver, ctx.report, ctx.runId);
            String prefix = ctx.runId + "-api-";
            Load.closed(
                    o.warmup,
                    c,
                    () -> apiCtx.shop.poster(i ->
                            new String[] {prefix + "warm-" + i, Shop.event("order.created", prefix + "warm-" + i)}));
            Cpu.Snapshot before = Cpu.now();
            peak = InboxScenarios.peak(apiCtx, prefix + "peak-");
            peakCpu = Cpu.between(before, Cpu.now());
            InboxScenarios inbox = new InboxScenarios(apiCtx);
            try {
                inbox.rawInserts(prefix + "rawwarm-", o.warmup);
                before = Cpu.now();
                raw = inbox.rawInserts(prefix + "raw-", o.n);
                rawCpu = Cpu.between(before, Cpu.now());
            } finally {
                inbox.closePool();
            }
        } finally {
            Machine.postgresDataDirectory = mainDataDirectory;
        }
        Report r = ctx.report;
        String baseline = "raw JDBC INSERT … ON CONFLICT, " + c + " threads, same database";
        r.metric(TITLE, "accepted/s (" + c + " connections)", peak.perSecond(), raw.perSecond(), baseline);
        r.metric(TITLE, "latency p50 ms", peak.p50Ms(), raw.latencies().percentileMs(50), baseline);
        r.metric(TITLE, "latency p99 ms", peak.p99Ms(), raw.latencies().percentileMs(99), baseline);
        r.fact(TITLE, "non-200 answers", Long.toString(peak.failures()), "0");
        r.note(
                TITLE,
                String.format(
                        Locale.ROOT,
                        "A second Relaybox with roles: api (its own embedded PostgreSQL, durable "
                                + "as shipped). Peak: %s. Baseline: %d raw inserts after %d warm-up ones.",
                        peak.how(),
                        o.n,
                        o.warmup));
        r.note(TITLE, "Relaybox: " + peakCpu + ". Raw JDBC: " + rawCpu + ".");
    }
}
