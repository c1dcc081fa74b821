package dev.relaybox.bench;

import dev.relaybox.producer.Outbox;
import io.dropwizard.testing.ConfigOverride;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The intake while a backlog drains, all roles in one Relaybox: per candidate worker bound (a set of config
 * overrides), a fresh Relaybox is booted, its intake's peak measured by wrk, then the intake is paced at half of the
 * first candidate's peak from a load generator in its own JVM ({@link PacedPoster}), once with nothing behind it (the
 * baseline) and once right after a backlog of inbox and outbox rows was written, while the backlog drains. Reported:
 * intake p50/p99 both ways, and the backlog's drain rate while the intake runs and in the same time after it stopped.
 */
final class IntakeUnderLoadScenario {
    static final String TITLE = "Intake while a backlog drains";
    static final String PATH = "/intake-load";
    static final double TARGET_P99_MS = 100;
    /** Short: what the peak accepted is processed before the baseline, and a bounded worker takes a while. */
    static final Duration PEAK = Duration.ofSeconds(5);

    /** A bound to measure: a label and the config overrides it boots with (none: config.yml as shipped). */
    record Candidate(String label, List<ConfigOverride> overrides, String settings) {
        /** {@code label} or {@code label:key=value,key=value}. */
        static Candidate parse(String text) {
            int colon = text.indexOf(':');
            if (colon < 0) {
                return new Candidate(text.trim(), List.of(), "config.yml as shipped");
            }
            List<ConfigOverride> overrides = new ArrayList<>();
            String settings = text.substring(colon + 1).trim();
            for (String pair : settings.split(",")) {
                String[] kv = pair.split("=", 2);
                if (kv.length != 2) {
                    throw new IllegalArgumentException("expected key=value in " + text);
                }
                overrides.add(ConfigOverride.config(kv[0].trim(), kv[1].trim()));
            }
            return new Candidate(text.substring(0, colon).trim(), overrides, settings);
        }
    }

    private record Measured(
            Candidate candidate,
            InboxScenarios.Peak peak,
            PacedPoster.Result idle,
            PacedPoster.Result draining,
            double drainedDuring,
            double drainedAfter,
            int backlogLeft,
            double enqueueSeconds,
            String cpu) {}

    private final Context ctx;

    IntakeUnderLoadScenario(Context ctx) {
        this.ctx = ctx;
    }

    void run() throws Exception {
        if (!ctx.relaybox.embeddedDatabase()) {
            ctx.report.fact(TITLE, "skipped", "only with the embedded PostgreSQL (one per candidate)", "–");
            return;
        }
        Options o = ctx.options;
        Path mainDataDirectory = Machine.postgresDataDirectory;
        List<Measured> results = new ArrayList<>();
        double pace = o.intakePace > 0 ? o.intakePace : Double.NaN;
        try {
            for (String text : o.intakeCandidates) {
                Candidate candidate = Candidate.parse(text);
                System.out.println("   candidate " + candidate.label() + ": " + candidate.settings());
                Measured m = measure(candidate, pace);
                if (Double.isNaN(pace)) {
                    pace = m.peak().perSecond() / 2;
                }
                results.add(m);
            }
        } finally {
            Machine.postgresDataDirectory = mainDataDirectory;
        }
        report(results, pace);
    }

    private Measured measure(Candidate candidate, double givenPace) throws Exception {
        Options o = ctx.options;
        int c = o.concurrency;
        String prefix = ctx.runId + "-iul-" + candidate.label() + "-";
        try (Relaybox relaybox = Relaybox.start(o.config, ctx.relaybox.engine(), candidate.overrides())) {
            Context here = new Context(o, relaybox, ctx.receiver, ctx.report, ctx.runId);
            new Admin(relaybox).registerEndpoint(ctx.runId, ctx.receiver.url(PATH), "[\"bench.*\"]");
            ctx.receiver.reset(PATH, 200);
            InboxScenarios.Peak peak = InboxScenarios.peak(here, prefix + "peak-", PEAK);
            here.settle();
            double pace = Double.isNaN(givenPace) ? peak.perSecond() / 2 : givenPace;
            Duration warmup = Duration.ofSeconds(3);
            PacedPoster.Result idle = PacedPoster.run(
                    here.shop, relaybox.api("/webhooks/shop"), pace, o.pacedDuration, c, prefix + "idle-", warmup);
            here.settle();

            long began = System.nanoTime();
            writeBacklog(here, prefix + "bl-", o.intakeBacklog);
            double enqueueSeconds = (System.nanoTime() - began) / 1e9;
            int before = drained(here, prefix + "bl-");
            long from = System.nanoTime();
            Cpu.Snapshot cpuFrom = Cpu.now();
            PacedPoster.Result draining = PacedPoster.run(
                    here.shop, relaybox.api("/webhooks/shop"), pace, o.pacedDuration, c, prefix + "busy-", warmup);
            String cpu = Cpu.between(cpuFrom, Cpu.now());
            int during = drained(here, prefix + "bl-");
            double duringSeconds = (System.nanoTime() - from) / 1e9;
            long afterFrom = System.nanoTime();
            Context.sleep(o.pacedDuration.toMillis());
            int after = drained(here, prefix + "bl-");
            double afterSeconds = (System.nanoTime() - afterFrom) / 1e9;
            return new Measured(
                    candidate,
                    peak,
                    idle,
                    draining,
                    (during - before) / duringSeconds,
                    (after - during) / afterSeconds,
                    o.intakeBacklog - after,
                    enqueueSeconds,
                    cpu);
        }
    }

    /** Half the backlog as received webhooks (inserted as the intake would), half as outbox rows, 100 a transaction. */
    private static void writeBacklog(Context here, String prefix, int size) throws Exception {
        int inbox = size / 2;
        int outbox = size - inbox;
        int perTransaction = 100;
        int inboxBatches = (inbox + perTransaction - 1) / perTransaction;
        int outboxBatches = (outbox + perTransaction - 1) / perTransaction;
        Load.closed(inboxBatches + outboxBatches, here.options.concurrency, () -> batch -> {
            here.jdbi().useTransaction(h -> {
                if (batch < inboxBatches) {
                    for (int i = batch * perTransaction; i < Math.min(inbox, (batch + 1) * perTransaction); i++) {
                        String id = prefix + "in-" + i;
                        h.createUpdate("""
                                        INSERT INTO webhook_inbox (partner_name, partner_event_id, event_type,
                                                                   aggregate_type, aggregate_id, payload, signature_verified)
                                        VALUES ('shop', :id, 'order.created', 'order', :id, CAST(:payload AS jsonb), true)""")
                                .bind("id", id)
                                .bind("payload", Shop.event("order.created", id))
                                .execute();
                    }
                } else {
                    int first = (batch - inboxBatches) * perTransaction;
                    for (int i = first; i < Math.min(outbox, first + perTransaction); i++) {
                        Outbox.enqueue(h, OutboundScenario.event(prefix + "out", i));
                    }
                }
            });
            return true;
        });
    }

    /** Backlog rows finished: inbox rows processed and outbox rows whose deliveries are done. */
    private static int drained(Context here, String prefix) {
        return here.jdbi()
                .withHandle(h -> h.createQuery("""
                        SELECT (SELECT count(*) FROM webhook_inbox
                                 WHERE partner_event_id LIKE :p AND status = 'PROCESSED')
                             + (SELECT count(*) FROM outbox_events
                                 WHERE aggregate_id LIKE :p AND processed_at IS NOT NULL)""")
                        .bind("p", prefix + "%")
                        .mapTo(int.class)
                        .one());
    }

    private void report(List<Measured> results, double pace) {
        Report r = ctx.report;
        Options o = ctx.options;
        String at = String.format(Locale.ROOT, "at %.0f/s", pace);
        Measured first = results.get(0);
        for (Measured m : results) {
            String label = m.candidate().label();
            r.metric(
                    TITLE,
                    label + ": intake p99 ms " + at + " while draining",
                    m.draining().p99Ms(),
                    m.idle().p99Ms(),
                    "same, no backlog");
            r.metric(
                    TITLE,
                    label + ": intake p50 ms " + at + " while draining",
                    m.draining().p50Ms(),
                    m.idle().p50Ms(),
                    "same, no backlog");
            r.fact(
                    TITLE,
                    label + ": p99 while draining ≤ " + (int) TARGET_P99_MS + " ms",
                    m.draining().p99Ms() <= TARGET_P99_MS ? "met" : "not met",
                    "met");
            r.metric(
                    TITLE,
                    label + ": backlog drained/s while the intake runs",
                    m.drainedDuring(),
                    first.drainedDuring(),
                    first.candidate().label() + ", same");
            r.metric(
                    TITLE,
                    label + ": backlog drained/s after the intake stopped",
                    m.drainedAfter(),
                    first.drainedAfter(),
                    first.candidate().label() + ", same");
            r.metric(
                    TITLE,
                    label + ": intake peak accepted/s (wrk)",
                    m.peak().perSecond(),
                    first.peak().perSecond(),
                    first.candidate().label() + ", same");
            r.fact(
                    TITLE,
                    label + ": non-200 answers (paced, idle + draining)",
                    Integer.toString(m.idle().failures() + m.draining().failures()),
                    "0");
            r.note(
                    TITLE,
                    String.format(
                            Locale.ROOT,
                            "%s (%s): peak %s. Backlog of %d rows written in %.1f s; %d still left %d s after the "
                                    + "paced run. While draining: %s; p99 %.1f ms, max %.1f ms over %d requests.",
                            label,
                            m.candidate().settings(),
                            m.peak().how(),
                            o.intakeBacklog,
                            m.enqueueSeconds(),
                            m.backlogLeft(),
                            o.pacedDuration.toSeconds(),
                            m.cpu(),
                            m.draining().p99Ms(),
                            m.draining().maxMs(),
                            m.draining().requests()));
        }
        r.note(
                TITLE,
                String.format(
                        Locale.ROOT,
                        "Each candidate boots its own Relaybox with all roles (its own embedded PostgreSQL and Temporal "
                                + "server); its peak is wrk for %d s. Pace: %s, %.1f/s, for every candidate, from a "
                                + "load generator in its own JVM (%d keep-alive connections, open-loop schedule, latency from "
                                + "when each request was due, 3 s unrecorded warm-up, then %d s). Backlog: %d rows, half "
                                + "received webhooks, half outbox rows for one endpoint answering 200 at once, written just "
                                + "before the paced run; drained/s counts backlog rows finished during the paced run "
                                + "(warm-up included) and in the %d s after it.",
                        PEAK.toSeconds(),
                        o.intakePace > 0 ? "--intake-pace" : "half of the first candidate's wrk peak",
                        pace,
                        o.concurrency,
                        o.pacedDuration.toSeconds(),
                        o.intakeBacklog,
                        o.pacedDuration.toSeconds()));
    }
}
