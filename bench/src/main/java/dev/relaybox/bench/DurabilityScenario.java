package dev.relaybox.bench;

import io.dropwizard.testing.ConfigOverride;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import org.jdbi.v3.core.Handle;

/**
 * What durable embedded PostgreSQL costs the intake: the same burst of signed webhooks against Relaybox as shipped
 * (fsync, synchronous commit and full page writes on) and against a second Relaybox booted in this run with
 * {@code embeddedPostgres.durable: false} (the library's test settings), then against the first one again, so a
 * drift of the machine during the run shows instead of passing for the difference.
 */
final class DurabilityScenario {
    static final String TITLE = "Durability cost";

    private record Measured(String settings, Run intake, Run raw) {}

    private final Context ctx;

    DurabilityScenario(Context ctx) {
        this.ctx = ctx;
    }

    void run() throws Exception {
        if (!ctx.relaybox.embeddedDatabase()) {
            ctx.report.fact(TITLE, "skipped", "only for the embedded PostgreSQL", "–");
            return;
        }
        Measured durable = measure(ctx, "dur1");
        Measured fast;
        Path mainDataDirectory = Machine.postgresDataDirectory;
        try (Relaybox other = Relaybox.start(
                ctx.options.config,
                ctx.relaybox.engine(),
                List.of(
                        ConfigOverride.config("embeddedPostgres.durable", "false"),
                        ConfigOverride.config("inbox.recheckInterval", "1h")))) {
            fast = measure(new Context(ctx.options, other, ctx.receiver, ctx.report, ctx.runId), "fast");
        } finally {
            Machine.postgresDataDirectory = mainDataDirectory;
        }
        Measured durableAgain = measure(ctx, "dur2");

        Report r = ctx.report;
        int c = ctx.options.concurrency;
        String baseline = "not durable (fsync, synchronous_commit off)";
        r.metric(
                TITLE,
                "accepted/s durable, first (" + c + " clients)",
                durable.intake().perSecond(),
                fast.intake().perSecond(),
                baseline);
        r.metric(
                TITLE,
                "accepted/s durable, again",
                durableAgain.intake().perSecond(),
                fast.intake().perSecond(),
                baseline);
        r.metric(
                TITLE,
                "latency p50 ms, durable",
                durable.intake().latencies().percentileMs(50),
                fast.intake().latencies().percentileMs(50),
                baseline);
        r.metric(
                TITLE,
                "latency p99 ms, durable",
                durable.intake().latencies().percentileMs(99),
                fast.intake().latencies().percentileMs(99),
                baseline);
        r.metric(
                TITLE,
                "raw JDBC inserts/s, durable",
                durable.raw().perSecond(),
                fast.raw().perSecond(),
                baseline);
        r.fact(
                TITLE,
                "non-200 answers",
                Integer.toString(durable.intake().failures()
                        + fast.intake().failures()
                        + durableAgain.intake().failures()),
                "0");
        r.note(TITLE, "Durable: " + durable.settings() + ". Not durable: " + fast.settings() + ".");
        r.note(
                TITLE,
                String.format(
                        Locale.ROOT,
                        "Each side: %d webhooks from %d keep-alive clients after %d warm-up "
                                + "requests, then %d raw JDBC inserts of inbox rows (the store's own limit) from %d threads. The "
                                + "durable Relaybox was measured before and after the other one.",
                        ctx.options.n,
                        c,
                        ctx.options.warmup,
                        ctx.options.n,
                        c));
    }

    private static Measured measure(Context c, String tag) throws Exception {
        Options o = c.options;
        String settings = c.jdbi()
                .withHandle(h -> "fsync " + show(h, "fsync") + ", synchronous_commit " + show(h, "synchronous_commit")
                        + ", full_page_writes " + show(h, "full_page_writes"));
        String prefix = c.runId + "-" + tag + "-";
        Load.closed(o.warmup, o.concurrency, () -> c.shop.poster(i -> event(prefix + "warm-" + i)));
        c.settle();
        Run intake = Load.closed(o.n, o.concurrency, () -> c.shop.poster(i -> event(prefix + i)));
        c.settle();
        InboxScenarios inbox = new InboxScenarios(c);
        try {
            Run raw = inbox.rawInserts(prefix + "raw-", o.n);
            c.workflowsRun += o.warmup + o.n;
            System.out.printf(
                    Locale.ROOT,
                    "  %s (%s): %.1f accepted/s, %.1f raw inserts/s%n",
                    tag,
                    settings,
                    intake.perSecond(),
                    raw.perSecond());
            return new Measured(settings, intake, raw);
        } finally {
            inbox.closePool();
        }
    }

    private static String[] event(String eventId) {
        return new String[] {eventId, Shop.event("order.created", eventId)};
    }

    private static String show(Handle h, String setting) {
        return h.createQuery("SHOW " + setting).mapTo(String.class).one();
    }
}
