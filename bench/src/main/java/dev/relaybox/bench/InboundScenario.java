package dev.relaybox.bench;

import dev.relaybox.workflows.inbound.InboxEventWorkflow;
import java.net.http.HttpClient;
import java.net.http.HttpResponse;
import java.util.Locale;
import java.util.Map;

/**
 * Inbound end to end: order.created and order.paid for N/2 orders, half of the pairs sent paid-first, until every
 * event is PROCESSED. Paid events that were decided before their order existed are deferred and then released by
 * the created event's workflow; the share that took that path is reported.
 */
final class InboundScenario {
    private final Context ctx;

    InboundScenario(Context ctx) {
        this.ctx = ctx;
    }

    void run() throws Exception {
        String scenario = "Inbound end to end";
        Options o = ctx.options;
        int orders = o.n / 2;
        String prefix = ctx.runId + "-in-";
        Cpu.Snapshot before = Cpu.now();
        Costs.Snapshot costFrom = Costs.now(ctx);
        Run sent = Load.closed(orders, o.concurrency, () -> {
            HttpClient client = Shop.client();
            return k -> {
                String order = prefix + k;
                boolean paidFirst = k % 2 == 1;
                String[][] events = paidFirst
                        ? new String[][] {{order + "-paid-early", "order.paid"}, {order + "-created", "order.created"}}
                        : new String[][] {{order + "-created", "order.created"}, {order + "-paid", "order.paid"}};
                boolean ok = true;
                for (String[] e : events) {
                    ok &= client.send(
                                            ctx.shop.request(e[0], Shop.event(e[1], order)),
                                            HttpResponse.BodyHandlers.discarding())
                                    .statusCode()
                            == 200;
                }
                return ok;
            };
        });
        String like = prefix + "%";
        boolean finished = ctx.await(
                "inbound events to be processed",
                () -> ctx.jdbi()
                        .withHandle(h -> h.createQuery(
                                        "SELECT count(*) FROM webhook_inbox WHERE partner_event_id LIKE :like AND status IN ('RECEIVED', 'DEFERRED')")
                                .bind("like", like)
                                .mapTo(int.class)
                                .one()));
        String cpu = Cpu.between(before, Cpu.now());
        Costs.PerEvent cost = Costs.between(ctx, costFrom, Costs.now(ctx), 2 * orders);
        double history = Costs.historyEvents(
                ctx,
                ctx.jdbi()
                        .withHandle(h -> h.createQuery(
                                        "SELECT workflow_id, partner_name, partner_event_id FROM webhook_inbox "
                                                + "WHERE partner_event_id LIKE :like LIMIT 20")
                                .bind("like", prefix + "%")
                                .map((rs, c) -> InboxEventWorkflow.workflowIdOf(
                                        rs.getString("workflow_id"),
                                        rs.getString("partner_name"),
                                        rs.getString("partner_event_id")))
                                .list()));
        Map<String, Object> stats = ctx.jdbi()
                .withHandle(
                        h -> h.createQuery("""
                        SELECT count(*) AS events,
                               count(*) FILTER (WHERE status = 'PROCESSED') AS processed,
                               extract(epoch FROM max(processed_at) - min(received_at)) AS seconds,
                               percentile_cont(0.5) WITHIN GROUP (ORDER BY extract(epoch FROM processed_at - received_at)) AS p50,
                               percentile_cont(0.99) WITHIN GROUP (ORDER BY extract(epoch FROM processed_at - received_at)) AS p99,
                               count(*) FILTER (WHERE event_type = 'order.paid') AS paid,
                               count(*) FILTER (WHERE event_type = 'order.paid' AND defer_reason IS NOT NULL) AS deferred,
                               count(*) FILTER (WHERE event_type = 'order.paid' AND defer_reason IS NOT NULL
                                                AND status = 'PROCESSED' AND outcome = 'APPLIED') AS released,
                               count(*) FILTER (WHERE partner_event_id LIKE '%-paid-early') AS early,
                               count(*) FILTER (WHERE partner_event_id LIKE '%-paid-early' AND defer_reason IS NOT NULL) AS early_deferred,
                               count(*) FILTER (WHERE partner_event_id LIKE '%-paid' AND defer_reason IS NOT NULL) AS late_deferred
                          FROM webhook_inbox WHERE partner_event_id LIKE :like""").bind("like", like).mapToMap().one());
        int paidEntities = ctx.jdbi()
                .withHandle(h -> h.createQuery(
                                "SELECT count(*) FROM entities WHERE aggregate_type = 'order' AND aggregate_id LIKE :like AND state = 'paid'")
                        .bind("like", like)
                        .mapTo(int.class)
                        .one());
        ctx.settle();
        ctx.workflowsRun += 2 * orders + orders;

        long events = ((Number) stats.get("events")).longValue();
        double seconds = ((Number) stats.get("seconds")).doubleValue();
        double processedPerSecond = events / seconds;
        String bareFrom = "bare Temporal workflows/s (outbound scenario)";
        if (Double.isNaN(ctx.bareWorkflowsPerSecond)) {
            // The outbound scenario did not run: measure the ceiling here, in the same run, after the events.
            BareTemporal bare = ctx.bare();
            ctx.bareWorkflowsPerSecond = EndToEnd.run(
                            ctx,
                            "bare workflows",
                            o.n,
                            0,
                            i -> {
                                String id = prefix + "bare-" + i;
                                bare.start(id);
                                return id;
                            },
                            BareTemporal.TOUCHED)
                    .perSecond();
            ctx.workflowsRun += o.n;
            bareFrom = "bare Temporal workflows/s (" + o.n + ", measured after the events)";
        }
        long paid = num(stats, "paid");
        long deferred = num(stats, "deferred");
        Report r = ctx.report;
        r.metric(scenario, "processed/s", processedPerSecond, ctx.bareWorkflowsPerSecond, bareFrom);
        if (ctx.bareCost != null) {
            Costs.report(
                    ctx,
                    scenario,
                    cost,
                    ctx.bareCost,
                    history,
                    ctx.bareHistory,
                    "bare Temporal: no-op workflow + 1 no-op activity (outbound scenario)");
        }
        r.metric(
                scenario,
                "received→processed p50 ms",
                ((Number) stats.get("p50")).doubleValue() * 1000,
                Double.NaN,
                "");
        r.metric(
                scenario,
                "received→processed p99 ms",
                ((Number) stats.get("p99")).doubleValue() * 1000,
                Double.NaN,
                "");
        r.fact(
                scenario,
                "paid events deferred, then released",
                String.format(
                        Locale.ROOT,
                        "%d of %d (%.0f%%), %d released",
                        deferred,
                        paid,
                        100.0 * deferred / Math.max(1, paid),
                        num(stats, "released")),
                "all deferred released");
        r.fact(
                scenario,
                "deferred: sent paid-first / in order",
                num(stats, "early_deferred") + " of " + num(stats, "early") + " / " + num(stats, "late_deferred")
                        + " of " + (paid - num(stats, "early")),
                "–");
        r.fact(
                scenario,
                "orders ending paid / events processed",
                paidEntities + " / " + num(stats, "processed"),
                orders + " / " + (2L * orders));
        if (!finished || sent.failures() > 0) {
            r.fact(
                    scenario,
                    "non-200 answers / unfinished",
                    sent.failures() + " / " + (events - num(stats, "processed")),
                    "0 / 0");
        }
        r.note(
                scenario,
                String.format(
                        Locale.ROOT,
                        "%d orders, created + paid each (%d events) from %d clients; every "
                                + "second order sends paid first, back to back with created. Rate = events / (last processed_at − first "
                                + "received_at), from the database. Each applied order.paid also emits an outbox event "
                                + "(order.payment_confirmed, no subscriber), whose workflow runs in the same window.",
                        orders,
                        2 * orders,
                        o.concurrency));
        r.note(scenario, cpu + ".");
    }

    private static long num(Map<String, Object> stats, String key) {
        return ((Number) stats.get(key)).longValue();
    }
}
