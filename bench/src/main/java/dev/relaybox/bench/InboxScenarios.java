package dev.relaybox.bench;

import com.codahale.metrics.MetricRegistry;
import io.dropwizard.db.ManagedDataSource;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

/**
 * Inbox accept and the duplicate storm: signed partner webhooks against {@code POST /webhooks/shop}, compared with
 * the store's own limit, a raw JDBC {@code INSERT ... ON CONFLICT DO NOTHING} of the same rows into
 * {@code webhook_inbox} from the same number of threads through a pool built from Relaybox's own settings.
 */
final class InboxScenarios {
    // The intake's own statement, plus three columns that mark the row finished: the baseline measures the insert
    // alone and leaves no background work for the dispatcher (its trigger still fires, as for the intake).
    private static final String INSERT = """
            INSERT INTO webhook_inbox (partner_name, partner_event_id, event_type, aggregate_type, aggregate_id,
                                       payload, signature_verified, status, dispatched_at, processed_at)
            VALUES ('shop', ?, 'order.created', 'order', ?, CAST(? AS jsonb), true, 'PROCESSED', now(), now())
            ON CONFLICT (partner_name, partner_event_id) DO NOTHING
            RETURNING id""";

    private final Context ctx;
    private final ManagedDataSource pool;

    InboxScenarios(Context ctx) {
        this.ctx = ctx;
        // The application's own pool settings (URL, size, validation), as a separate pool for the baseline.
        this.pool = ctx.relaybox.config().getDatabase().build(new MetricRegistry(), "bench-raw");
    }

    void accept() throws Exception {
        String scenario = "Inbox accept";
        Options o = ctx.options;
        int c = o.concurrency;
        String prefix = ctx.runId + "-acc-";

        Load.closed(o.warmup, c, () -> ctx.shop.poster(i -> http(prefix + "warm-" + i)));
        Load.closed(o.warmup, c, () -> raw(prefix + "rawwarm-"));
        ctx.settle();

        Cpu.Snapshot before = Cpu.now();
        Peak peak = peak(ctx, prefix + "peak-");
        String peakCpu = Cpu.between(before, Cpu.now());
        ctx.settle();

        before = Cpu.now();
        Run base = Load.closed(o.n, c, () -> raw(prefix + "raw-"));
        String baseCpu = Cpu.between(before, Cpu.now());
        ctx.settle();

        double half = peak.perSecond() / 2;
        int pacedCount = (int) Math.max(100, Math.min(o.n, half * o.pacedDuration.toSeconds()));
        Run paced = Load.paced(pacedCount, c, half, () -> ctx.shop.poster(i -> http(prefix + "paced-" + i)));
        ctx.settle();
        Run pacedBase = Load.paced(pacedCount, c, half, () -> raw(prefix + "rawpaced-"));
        ctx.settle();
        ctx.workflowsRun += o.warmup + peak.requests() + pacedCount;

        Report r = ctx.report;
        String baseline = "raw JDBC INSERT … ON CONFLICT, " + c + " threads";
        r.metric(scenario, "accepted/s (" + c + " clients)", peak.perSecond(), base.perSecond(), baseline);
        r.metric(scenario, "latency p50 ms", peak.p50Ms(), base.latencies().percentileMs(50), baseline);
        r.metric(scenario, "latency p99 ms", peak.p99Ms(), base.latencies().percentileMs(99), baseline);
        r.metric(scenario, "latency max ms", peak.maxMs(), base.latencies().maxMs(), baseline);
        String pacedName = String.format(Locale.ROOT, "paced at %.0f/s", half);
        r.metric(
                scenario,
                "p99 ms, " + pacedName,
                paced.latencies().percentileMs(99),
                pacedBase.latencies().percentileMs(99),
                "raw JDBC, same pace");
        r.metric(
                scenario,
                "p50 ms, " + pacedName,
                paced.latencies().percentileMs(50),
                pacedBase.latencies().percentileMs(50),
                "raw JDBC, same pace");
        r.fact(scenario, "non-200 answers", Long.toString(peak.failures() + paced.failures()), "0");
        r.note(
                scenario,
                String.format(
                        Locale.ROOT,
                        "Peak: %s, each a fresh event id, signed with Standard Webhooks; "
                                + "%d warm-up requests first (JDK HttpClient). The paced run sends %d from %d JDK HttpClients in the "
                                + "benchmark's JVM at half the peak rate on an open-loop schedule (latency counted from when each "
                                + "request was due).",
                        peak.how(),
                        o.warmup,
                        pacedCount,
                        c));
        r.note(scenario, "Relaybox peak: " + peakCpu + ". Raw JDBC: " + baseCpu + ".");
        r.note(
                scenario,
                "Accepted rows are dispatched and processed (one workflow each) in the background while the "
                        + "intake runs, on the same cores; the scenario waits for them before the next run. Baseline rows are "
                        + "inserted already marked processed, so nothing runs behind them; the insert trigger still NOTIFYs.");
    }

    void duplicates() throws Exception {
        String scenario = "Duplicate storm";
        Options o = ctx.options;
        int c = o.concurrency;
        String eventId = ctx.runId + "-dup-1";
        String body = Shop.event("order.created", ctx.runId + "-dup-order");
        AtomicInteger accepted = new AtomicInteger();
        AtomicInteger duplicate = new AtomicInteger();
        Cpu.Snapshot before = Cpu.now();
        Run storm = Load.closed(o.n, c, () -> {
            HttpClient client = Shop.client();
            return index -> {
                HttpResponse<String> answer =
                        client.send(ctx.shop.request(eventId, body), HttpResponse.BodyHandlers.ofString());
                if (answer.body().contains("\"accepted\"")) {
                    accepted.incrementAndGet();
                } else if (answer.body().contains("\"duplicate\"")) {
                    duplicate.incrementAndGet();
                }
                return answer.statusCode() == 200;
            };
        });
        String cpu = Cpu.between(before, Cpu.now());
        int rows = ctx.jdbi()
                .withHandle(h -> h.createQuery(
                                "SELECT count(*) FROM webhook_inbox WHERE partner_name = 'shop' AND partner_event_id = :id")
                        .bind("id", eventId)
                        .mapTo(int.class)
                        .one());
        String rawId = ctx.runId + "-dup-raw";
        Run base = Load.closed(o.n, c, () -> rawSame(rawId));
        ctx.settle();
        int entityVersion = ctx.jdbi()
                .withHandle(h -> h.createQuery(
                                "SELECT coalesce(max(version), 0) FROM entities WHERE aggregate_type = 'order' AND aggregate_id = :id")
                        .bind("id", ctx.runId + "-dup-order")
                        .mapTo(int.class)
                        .one());
        ctx.workflowsRun += 1;

        Report r = ctx.report;
        String baseline = "raw JDBC INSERT … ON CONFLICT of one row";
        r.metric(scenario, "answers/s (" + c + " clients)", storm.perSecond(), base.perSecond(), baseline);
        r.metric(
                scenario,
                "latency p99 ms",
                storm.latencies().percentileMs(99),
                base.latencies().percentileMs(99),
                baseline);
        r.fact(scenario, "rows stored", Integer.toString(rows), "1");
        r.fact(scenario, "non-200 answers", Integer.toString(storm.failures()), "0");
        r.fact(scenario, "answered accepted / duplicate", accepted.get() + " / " + duplicate.get(), "1 / " + (o.n - 1));
        r.fact(scenario, "entity version after processing", Integer.toString(entityVersion), "1");
        r.note(
                scenario,
                String.format(Locale.ROOT, "One event id posted %d times by %d clients at once. %s.", o.n, c, cpu));
    }

    /** A closed-loop burst of unique webhooks: answers/s, latencies and failures, and how it was sent. */
    record Peak(long requests, double perSecond, double p50Ms, double p99Ms, double maxMs, long failures, String how) {}

    /**
     * The intake's peak from {@code c} keep-alive connections: from wrk in its own process for
     * {@code --paced-seconds} when it is installed, else {@code --n} requests from JDK HttpClients in this JVM.
     */
    static Peak peak(Context ctx, String prefix) throws Exception {
        return peak(ctx, prefix, ctx.options.pacedDuration);
    }

    /** The peak as above, from wrk for {@code duration}. */
    static Peak peak(Context ctx, String prefix, Duration duration) throws Exception {
        Options o = ctx.options;
        int c = o.concurrency;
        if (Wrk.available()) {
            Wrk.Result w =
                    Wrk.post(ctx.relaybox.api("/webhooks/shop"), ctx.shop.secret(), prefix, c, duration, WRK_CAPACITY);
            return new Peak(
                    w.requests(),
                    w.perSecond(),
                    w.p50Ms(),
                    w.p99Ms(),
                    w.maxMs(),
                    w.non2xx() + w.socketErrors(),
                    "wrk (a separate process), " + c + " connections, " + Wrk.describe(w));
        }
        Run run = Load.closed(
                o.n, c, () -> ctx.shop.poster(i -> new String[] {prefix + i, Shop.event("order.created", prefix + i)}));
        return new Peak(
                run.items(),
                run.perSecond(),
                run.latencies().percentileMs(50),
                run.latencies().percentileMs(99),
                run.latencies().maxMs(),
                run.failures(),
                o.n + " webhooks from " + c + " JDK HttpClients in the benchmark's JVM (wrk is not installed)");
    }

    /** Pre-signed requests for one wrk run: more than 2 cores answer in --paced-seconds at default settings. */
    private static final int WRK_CAPACITY = 40_000;

    /** The baseline alone: {@code count} raw inserts from the scenario's threads. */
    Run rawInserts(String prefix, int count) throws Exception {
        return Load.closed(count, ctx.options.concurrency, () -> raw(prefix));
    }

    /** For a scenario run against a second Relaybox that stops before the run ends. */
    void closePool() throws Exception {
        pool.stop();
    }

    private String[] http(String eventId) {
        return new String[] {eventId, Shop.event("order.created", eventId)};
    }

    /** A baseline worker: its own connection from the pool, autocommit, one insert per call. */
    private Load.Worker raw(String prefix) {
        return raw(index -> prefix + index);
    }

    private Load.Worker raw(IntFunction<String> idOf) {
        try {
            Connection connection = pool.getConnection();
            PreparedStatement insert = connection.prepareStatement(INSERT);
            return new Load.Worker() {
                @Override
                public boolean call(int index) throws Exception {
                    String id = idOf.apply(index);
                    insert.setString(1, id);
                    insert.setString(2, id);
                    insert.setString(3, Shop.event("order.created", id));
                    try (var rs = insert.executeQuery()) {
                        rs.next();
                    }
                    return true;
                }

                @Override
                public void close() throws Exception {
                    insert.close();
                    connection.close();
                }
            };
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private Load.Worker rawSame(String eventId) {
        return raw(index -> eventId);
    }
}
