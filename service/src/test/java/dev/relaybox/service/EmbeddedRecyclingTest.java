package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.activities.outbound.TestReceiver.Reply;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * Embedded mode replaces its in-memory Temporal server every few executions (here 20) while webhooks flow both ways:
 * deliveries in flight and failing-and-retrying across recycles, inbound events deferred across them. Nothing is lost,
 * no webhook the receiver accepted is sent again, inbound events apply once, attempt numbers go on.
 */
class EmbeddedRecyclingTest {
    private static final int RECYCLE_AFTER = 20;
    private static final int FLAKY_EVENTS = 8;
    private static final int DEFERRED_ORDERS = 6;
    private static final int OK_EVENTS_PER_ROUND = 10;
    private static final int ORDERS_PER_ROUND = 2;

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void everythingIsDeliveredAndAppliedOnceAcrossRecycles() throws Exception {
        // Every answer takes 200 ms, so that attempts are in flight when a recycle comes; /slow takes 25 s, longer
        // than a worker factory's shutdown waits for its activities (a recycle without its quiesce would start the
        // delivery afresh while the first attempt is still in flight); /flaky fails until told otherwise.
        AtomicInteger flakyStatus = new AtomicInteger(503);
        try (TestReceiver receiver = new TestReceiver()
                .latency(Duration.ofMillis(200))
                .answer(request -> request.path().equals("/slow")
                        ? Reply.of(200).after(Duration.ofSeconds(25))
                        : Reply.of(request.path().equals("/flaky") ? flakyStatus.get() : 200))) {
            DropwizardTestSupport<RelayboxConfiguration> app = TestApp.support(
                    TestApp.freshDataDirectory(),
                    TestApp.freePort(),
                    ConfigOverride.config("temporal.embeddedRecycleAfter", Integer.toString(RECYCLE_AFTER)),
                    // Failing deliveries retry every 2s for long enough to span every recycle of the test.
                    ConfigOverride.config("delivery.retryDelays", String.join(",", Collections.nCopies(60, "2s"))),
                    ConfigOverride.config("delivery.circuitBreaker.failureThreshold", "0"),
                    // The slow receiver answers within it.
                    ConfigOverride.config("delivery.requestTimeout", "60s"),
                    ConfigOverride.config("inbox.recheckInterval", "2s"),
                    ConfigOverride.config("inbox.maxDeferral", "10m"));
            app.before();
            List<String> unhealthy = new CopyOnWriteArrayList<>();
            ScheduledExecutorService health = Executors.newSingleThreadScheduledExecutor();
            try {
                Api api = new Api(app);
                Jdbi db = api.jdbi();
                endpoint(api, "ok", receiver.url("/ok"), "test.ok");
                endpoint(api, "flaky", receiver.url("/flaky"), "test.flaky");
                endpoint(api, "slow", receiver.url("/slow"), "test.slow");
                health.scheduleAtFixedRate(() -> unhealthy.addAll(unhealthyChecks(app)), 0, 100, TimeUnit.MILLISECONDS);

                // Failing and retrying before the first recycle.
                List<String> flaky = new ArrayList<>();
                for (int i = 0; i < FLAKY_EVENTS; i++) {
                    flaky.add(enqueue(api, "test.flaky", "flaky-" + i));
                }
                await().atMost(Duration.ofSeconds(60))
                        .until(() ->
                                count(db, "SELECT count(DISTINCT delivery_id) FROM delivery_attempts") == FLAKY_EVENTS);
                // Deferred before the first recycle: paid before it was created.
                List<String> deferredOrders = IntStream.range(0, DEFERRED_ORDERS)
                        .mapToObj(i -> "deferred-" + i)
                        .toList();
                deferredOrders.forEach(order -> post(app, order + "-paid", "order.paid", order));
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> count(db, "SELECT count(*) FROM webhook_inbox WHERE status = 'DEFERRED'")
                                == DEFERRED_ORDERS);

                // In flight, for longer than a worker takes to shut down, when the next recycle comes (a round or two).
                List<String> slow = List.of(enqueue(api, "test.slow", "slow-0"), enqueue(api, "test.slow", "slow-1"));
                await().atMost(Duration.ofSeconds(60))
                        .until(() -> receiver.requestsByPath().getOrDefault("/slow", 0) == slow.size());
                List<String> ok = new ArrayList<>();
                List<String> orders = new ArrayList<>(deferredOrders);
                int round = 0;
                while (recycles(app) < 3) {
                    assertThat(round++).as("rounds before three recycles").isLessThan(30);
                    churn(app, api, db, ok, orders);
                }
                // Released after recycles: the deferred runs were re-driven and wait for their recorded rechecks.
                deferredOrders.forEach(order -> post(app, order + "-created", "order.created", order));
                int recyclesBefore = recycles(app);
                while (recycles(app) < recyclesBefore + 2) {
                    assertThat(round++).as("rounds before two more recycles").isLessThan(60);
                    churn(app, api, db, ok, orders);
                }
                flakyStatus.set(200);

                await().atMost(Duration.ofSeconds(120))
                        .until(() -> count(db, "SELECT count(*) FROM deliveries WHERE status <> 'DELIVERED'") == 0
                                && count(db, "SELECT count(*) FROM webhook_inbox WHERE status <> 'PROCESSED'") == 0);
                assertThat(count(db, "SELECT count(*) FROM deliveries"))
                        .isEqualTo(ok.size() + flaky.size() + slow.size());

                // Each webhook the receiver accepted, once: none sent again because a recycle lost track of it.
                assertThat(accepted(receiver, "/ok")).containsExactlyInAnyOrderElementsOf(ok);
                assertThat(accepted(receiver, "/flaky")).containsExactlyInAnyOrderElementsOf(flaky);
                assertThat(accepted(receiver, "/slow")).containsExactlyInAnyOrderElementsOf(slow);
                for (String id : flaky) {
                    List<Integer> attempts = db.withHandle(h -> h.createQuery("""
                                    SELECT a.attempt FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
                                     WHERE d.outbox_id = CAST(:id AS uuid) ORDER BY a.attempt""")
                            .bind("id", id)
                            .mapTo(Integer.class)
                            .list());
                    // Numbered on across recycles: 1, 2, 3, ... with no restart at 1 and no number twice.
                    assertThat(attempts)
                            .as("attempts of %s", id)
                            .hasSizeGreaterThan(1)
                            .isEqualTo(IntStream.rangeClosed(1, attempts.size())
                                    .boxed()
                                    .toList());
                    assertThat(receiver.received().stream()
                                    .filter(r -> id.equals(r.header("webhook-id")))
                                    .count())
                            .as("requests for %s", id)
                            .isEqualTo(attempts.size());
                }

                // Inbound: each order created then paid, once (a second order.paid would have emitted a second event).
                assertThat(count(db, "SELECT count(*) FROM entities WHERE state = 'paid' AND version = 2"))
                        .isEqualTo(orders.size());
                assertThat(count(db, "SELECT count(*) FROM outbox_events WHERE event_type = 'order.payment_confirmed'"))
                        .isEqualTo(orders.size());
                assertThat(count(db, "SELECT count(*) FROM dead_letters")).isZero();
                assertThat(recycles(app)).isGreaterThanOrEqualTo(5);
                assertThat(unhealthy).as("health checks failed during recycles").isEmpty();
            } finally {
                health.shutdownNow();
                app.after();
            }
        }
    }

    /** One round of traffic: outbound events delivered at once, and orders created then paid, all finished. */
    private void churn(
            DropwizardTestSupport<RelayboxConfiguration> app, Api api, Jdbi db, List<String> ok, List<String> orders) {
        for (int i = 0; i < OK_EVENTS_PER_ROUND; i++) {
            ok.add(enqueue(api, "test.ok", "ok-" + ok.size()));
        }
        for (int i = 0; i < ORDERS_PER_ROUND; i++) {
            String order = "order-" + orders.size();
            orders.add(order);
            post(app, order + "-created", "order.created", order);
            post(app, order + "-paid", "order.paid", order);
        }
        int expected = ok.size();
        await().atMost(Duration.ofSeconds(60))
                .until(() -> count(
                                db,
                                "SELECT count(*) FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id "
                                        + "WHERE e.name = 'ok' AND d.status = 'DELIVERED'")
                        == expected);
    }

    private static void endpoint(Api api, String name, String url, String eventType) {
        assertThat(api.admin(
                                "POST",
                                "/admin/endpoints",
                                Map.of("name", name, "url", url, "eventTypes", List.of(eventType)))
                        .status())
                .isEqualTo(201);
    }

    private static String enqueue(Api api, String eventType, String aggregateId) {
        Api.Answer answer = api.enqueue(eventType, "order", aggregateId, Map.of());
        assertThat(answer.status()).isEqualTo(202);
        return answer.text("id");
    }

    /** Posts one signed shop webhook and expects it accepted. */
    private void post(DropwizardTestSupport<RelayboxConfiguration> app, String eventId, String type, String orderId) {
        String body = "{\"type\": \"" + type + "\", \"data\": {\"orderId\": \"" + orderId + "\"}}";
        long timestamp = Instant.now().getEpochSecond();
        HttpRequest request = HttpRequest.newBuilder(
                        URI.create("http://localhost:" + app.getLocalPort() + "/webhooks/shop"))
                .timeout(Duration.ofSeconds(30))
                .header("content-type", "application/json")
                .header("webhook-id", eventId)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", ShopWebhooks.signature(eventId, timestamp, body))
                .POST(HttpRequest.BodyPublishers.ofString(body))
                .build();
        try {
            assertThat(http.send(request, HttpResponse.BodyHandlers.ofString()).statusCode())
                    .isEqualTo(200);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** relaybox_embedded_engine_recycles_total from the admin port's /metrics. */
    private int recycles(DropwizardTestSupport<RelayboxConfiguration> app) throws Exception {
        String metrics = http.send(
                        HttpRequest.newBuilder(URI.create("http://localhost:" + app.getAdminPort() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString())
                .body();
        return metrics.lines()
                .filter(line -> line.startsWith("relaybox_embedded_engine_recycles_total"))
                .map(line -> (int) Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1)))
                .findFirst()
                .orElse(0);
    }

    /** The admin port's health checks that are not healthy now, with what they say. */
    private List<String> unhealthyChecks(DropwizardTestSupport<RelayboxConfiguration> app) {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create("http://localhost:" + app.getAdminPort() + "/healthcheck"))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            // A frontend answering later than the check's 2 s deadline is the shared machine's load, not a recycle
            // (timings
            // are not asserted): what a recycle could cause is a refused connection or a stopped worker or dispatcher.
            return response.statusCode() == 200 || onlySlow(response.body()) ? List.of() : List.of(response.body());
        } catch (IOException e) {
            return List.of(e.toString());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return List.of();
        }
    }

    /** Whether every unhealthy check in a /healthcheck answer only ran out of its deadline. */
    private static boolean onlySlow(String body) {
        Matcher unhealthy =
                Pattern.compile("\\{\"healthy\":false,\"message\":\"([^\"]*)").matcher(body);
        boolean any = false;
        while (unhealthy.find()) {
            if (!unhealthy.group(1).startsWith("DEADLINE_EXCEEDED")) {
                return false;
            }
            any = true;
        }
        return any;
    }

    private static long count(Jdbi db, String sql) {
        return db.withHandle(h -> h.createQuery(sql).mapTo(Long.class).one());
    }

    /** The webhook ids answered 200 on {@code path}, once per acceptance. */
    private static List<String> accepted(TestReceiver receiver, String path) {
        return receiver.received(path).stream()
                .filter(r -> r.status() == 200)
                .map(r -> r.header("webhook-id"))
                .toList();
    }
}
