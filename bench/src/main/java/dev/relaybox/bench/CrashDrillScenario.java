package dev.relaybox.bench;

import dev.relaybox.producer.Outbox;
import dev.relaybox.store.Store;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.stream.Stream;
import org.jdbi.v3.core.Jdbi;

/**
 * kill -9 of Relaybox mid-flight, as a user would meet it: Relaybox from the built jar on the bench's engine (the dev
 * server or the in-process one), outbox events to the bench's receiver and orders through the inbox (half of them
 * paid before created, so they wait deferred), killed while both are under way, then started again on the same data
 * directory. Measures the seconds from the restart until every order is paid, until every event is delivered (the
 * backlog left at the kill, so mostly the engine's delivery rate), and what was lost or applied twice.
 */
final class CrashDrillScenario {
    static final String TITLE = "Crash drill";

    private final Context ctx;

    CrashDrillScenario(Context ctx) {
        this.ctx = ctx;
    }

    void run() throws Exception {
        Options o = ctx.options;
        if (!ctx.canRunTheJar(TITLE)) {
            return;
        }
        Path root = Files.createTempDirectory("relaybox-crash-drill");
        Map<String, String> environment = new HashMap<>();
        environment.put("RELAYBOX_DATA_DIR", root.resolve("postgres").toString());
        int postgresPort = Relaybox.freePort();
        int apiPort = Relaybox.freePort();
        environment.put("EMBEDDED_POSTGRES_PORT", Integer.toString(postgresPort));
        environment.put("TEMPORAL_EMBEDDED_PORT", Integer.toString(Relaybox.freePort()));
        environment.put("TEMPORAL_EMBEDDED_UI_PORT", Integer.toString(Relaybox.freePort()));
        environment.put("TEMPORAL_EMBEDDED_ENGINE", o.engine);
        environment.put("PORT", Integer.toString(apiPort));
        environment.put("ADMIN_PORT", Integer.toString(Relaybox.freePort()));
        Path log = o.results.toAbsolutePath().resolve(ctx.runId + "-crash-drill-" + o.engine + ".log");
        Jdbi jdbi = Store.configure(
                Jdbi.create("jdbc:postgresql://127.0.0.1:" + postgresPort + "/postgres", "postgres", ""));
        String path = "/crash-drill-" + o.engine;
        Receiver.Tally tally = ctx.receiver.reset(path, 200);
        String prefix = ctx.runId + "-" + o.engine + "-";
        int events = o.drillEvents;
        int orders = o.drillOrders;
        try {
            RelayboxProcess first = RelayboxProcess.start(o.jar, o.config.toAbsolutePath(), environment, log);
            if (!first.awaitHealthy(RelayboxProcess.BOOT_LIMIT)) {
                first.kill();
                throw new IllegalStateException("Relaybox did not become healthy; see " + log);
            }
            String api = "http://127.0.0.1:" + apiPort;
            new Admin(URI.create(api)).registerEndpoint(prefix + "drill", ctx.receiver.url(path), "[\"bench.*\"]");
            Shop shop = new Shop(URI.create(api + "/webhooks/shop"));

            // Outbound and inbound at once; the orders with an even number get paid before they are created.
            CompletableFuture<Run> outbound = CompletableFuture.supplyAsync(() -> enqueue(jdbi, prefix, events));
            int half = orders / 2;
            Run early = Load.closed(half, o.concurrency, () -> shop.poster(i -> order(prefix, "order.paid", i)));
            Run created = Load.closed(orders, o.concurrency, () -> shop.poster(i -> order(prefix, "order.created", i)));
            Run late = Load.closed(
                    orders - half, o.concurrency, () -> shop.poster(i -> order(prefix, "order.paid", half + i)));
            Run enqueued = outbound.join();
            int refused = early.failures() + created.failures() + late.failures() + enqueued.failures();
            ctx.await("a quarter of the deliveries before the kill", () -> Math.max(0, events / 4 - tally.distinct()));

            int deliveredAtKill = tally.distinct();
            int paidAtKill = paid(jdbi, prefix);
            int deferredAtKill = deferred(jdbi, prefix);
            first.kill();
            System.out.printf(
                    Locale.ROOT,
                    "  killed (kill -9) with %d of %d delivered, %d of %d orders paid, %d deferred%n",
                    deliveredAtKill,
                    events,
                    paidAtKill,
                    orders,
                    deferredAtKill);

            long restart = System.nanoTime();
            try (RelayboxProcess second = RelayboxProcess.start(o.jar, o.config.toAbsolutePath(), environment, log)) {
                boolean healthy = second.awaitHealthy(RelayboxProcess.BOOT_LIMIT);
                double healthySeconds = (System.nanoTime() - restart) / 1e9;
                boolean paid = healthy
                        && ctx.await(
                                "every order paid after the restart",
                                () -> orders - paidOrUnknown(jdbi, prefix, orders));
                double allPaid = (System.nanoTime() - restart) / 1e9;
                boolean done =
                        paid && ctx.await("every event delivered after the restart", () -> events - tally.distinct());
                double recovered = (System.nanoTime() - restart) / 1e9;

                Report r = ctx.report;
                r.fact(
                        TITLE,
                        "at the kill: delivered, paid, deferred",
                        deliveredAtKill + " / " + paidAtKill + " / " + deferredAtKill,
                        "–");
                r.metric(TITLE, "s from restart to healthy", healthySeconds, Double.NaN, "");
                r.metric(TITLE, "s from restart to every order paid", paid ? allPaid : Double.NaN, 60, "target: 60 s");
                r.metric(
                        TITLE,
                        "s from restart to every event delivered",
                        done ? recovered : Double.NaN,
                        Double.NaN,
                        "");
                r.fact(
                        TITLE,
                        "lost (events + orders)",
                        (events - tally.distinct()) + " + " + (orders - paid(jdbi, prefix)),
                        "0 + 0");
                r.fact(
                        TITLE,
                        "applied twice (deliveries + orders)",
                        tally.duplicates.get() + " + " + appliedTwice(jdbi, prefix),
                        "0 + 0");
                r.fact(TITLE, "requests refused before the kill", Integer.toString(refused), "0");
                r.note(
                        TITLE,
                        String.format(
                                Locale.ROOT,
                                "%d outbox events (Outbox.enqueue, %d threads) and %d orders (%d paid before created) "
                                        + "while Relaybox ran from %s as its own process on engine %s; killed with "
                                        + "kill -9 once a quarter of the events had arrived, restarted on the same data "
                                        + "directory. Log: %s.",
                                events,
                                o.concurrency,
                                orders,
                                half,
                                o.jar,
                                o.engine,
                                log.getFileName()));
            }
        } finally {
            try (Stream<Path> files = Files.walk(root)) {
                files.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    private Run enqueue(Jdbi jdbi, String prefix, int events) {
        try {
            return Load.closed(events, ctx.options.concurrency, () -> index -> {
                jdbi.useTransaction(h -> Outbox.enqueue(h, OutboundScenario.event(prefix + "out", index)));
                return true;
            });
        } catch (Exception e) {
            throw new IllegalStateException("enqueueing the drill's outbox events failed", e);
        }
    }

    private static String[] order(String prefix, String type, int index) {
        String orderId = prefix + "order-" + index;
        return new String[] {orderId + "-" + type, Shop.event(type, orderId)};
    }

    private static int paid(Jdbi jdbi, String prefix) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM entities WHERE aggregate_type = 'order' "
                        + "AND state = 'paid' AND aggregate_id LIKE :prefix")
                .bind("prefix", prefix + "order-%")
                .mapTo(int.class)
                .one());
    }

    /** {@link #paid}, or none while the database is not reachable (Relaybox is still starting it). */
    private static int paidOrUnknown(Jdbi jdbi, String prefix, int orders) {
        try {
            return paid(jdbi, prefix);
        } catch (RuntimeException notYet) {
            return 0;
        }
    }

    private static int deferred(Jdbi jdbi, String prefix) {
        return jdbi.withHandle(h -> h.createQuery(
                        "SELECT count(*) FROM webhook_inbox WHERE status = 'DEFERRED' AND aggregate_id LIKE :prefix")
                .bind("prefix", prefix + "order-%")
                .mapTo(int.class)
                .one());
    }

    /** Orders whose transitions ran more than once: a version past paid's, or a second payment confirmation. */
    private static int appliedTwice(Jdbi jdbi, String prefix) {
        return jdbi.withHandle(
                h -> h.createQuery("SELECT (SELECT count(*) FROM entities WHERE aggregate_type = 'order' "
                                + "AND aggregate_id LIKE :prefix AND version > 2) + (SELECT count(*) FROM (SELECT "
                                + "aggregate_id FROM outbox_events WHERE event_type = 'order.payment_confirmed' AND "
                                + "aggregate_id LIKE :prefix GROUP BY aggregate_id HAVING count(*) > 1) twice)")
                        .bind("prefix", prefix + "order-%")
                        .mapTo(int.class)
                        .one());
    }
}
