package dev.relaybox.service.production;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;
import dev.relaybox.activities.FaultFigures;
import dev.relaybox.service.TestApp;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * The engine-loss drill, in the production shape: outbound deliveries backing off (their receiver fails the first
 * attempts) and inbound events deferred when the Temporal process is killed with SIGKILL. A new, empty Temporal
 * then answers at the same address, and only once Relaybox has tried it does {@code relaybox temporal setup} run, as
 * docker-compose.yml's one-shot does after the server is up: until then the server refuses every start for the
 * namespace it does not have (DispatcherOnRealTemporalTest covers a namespace without the search attributes).
 * Relaybox keeps running throughout, and partners keep sending while Temporal is away. The reconciler finds the new
 * server empty while rows wait for their workflows and re-drives everything from the database at once, long before
 * its grace would have: every event is delivered or applied once, none is dead-lettered, and no delivery is attempted
 * before the time its row recorded.
 */
class EngineLossIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int ENDPOINTS = 5;
    private static final int EVENTS_PER_ENDPOINT = 2;
    /** Half of the orders get order.paid before order.created (deferred), half in order. */
    private static final int ORDERS = 10;
    /** The receiver answers 503 to this many requests per webhook before it answers 200. */
    private static final int FAILURES_PER_WEBHOOK = 2;

    private static final String NAMESPACE = "relaybox-drill";

    @Test
    void everyEventIsDeliveredOrAppliedOnceAfterTemporalLostAllItsState() throws Exception {
        // A namespace of its own, as compose's TEMPORAL_NAMESPACE allows: the empty Temporal lacks it, as a
        // cluster whose state was lost does until the setup creates it again.
        Map<String, String> variables = Production.operatorVariables();
        variables.put("TEMPORAL_NAMESPACE", NAMESPACE);
        try (Production production = Production.startWithReplaceableTemporal("engine-loss", variables);
                FailingFirstReceiver receiver = new FailingFirstReceiver(FAILURES_PER_WEBHOOK)) {
            int port = TestApp.freePort();
            int adminPort = TestApp.freePort();
            Map<String, String> environment = production.relayboxEnvironment(variables, port, adminPort);
            // Attempt 2 comes 20s after attempt 1, so the kill finds every delivery waiting. The reconciler looks
            // every second, but re-drives an overdue row only after a grace longer than the drill: what recovers the
            // rows within it is the reconciler finding the engine empty.
            environment.put("DELIVERY_RETRY_DELAYS", "[20s, 3s, 3s, 3s]");
            environment.put("RECONCILE_INTERVAL", "1s");
            environment.put("RECONCILE_GRACE", "30m");
            JavaProcess relaybox = production.startRelaybox("relaybox", environment);
            production.awaitHealthy(relaybox, adminPort);
            String api = "http://127.0.0.1:" + port;
            Jdbi database = production.database();

            List<String> outboxIds = new ArrayList<>();
            for (int e = 0; e < ENDPOINTS; e++) {
                HttpResponse<String> endpoint = production.post(
                        api + "/admin/endpoints",
                        Production.ADMIN_TOKEN,
                        Map.of(),
                        JSON.writeValueAsString(Map.of(
                                "name", "drill-" + e, "url", receiver.url(e), "eventTypes", List.of("drill.e" + e))));
                assertThat(endpoint.statusCode()).as(endpoint.body()).isEqualTo(201);
                for (int n = 0; n < EVENTS_PER_ENDPOINT; n++) {
                    outboxIds.add(sendOutbound(production, api, "drill.e" + e, e + "-" + n));
                }
            }
            List<String> orders = new ArrayList<>();
            for (int i = 0; i < ORDERS; i++) {
                String order = "loss-" + UUID.randomUUID();
                orders.add(order);
                sendInbound(production, api, order, i % 2 == 0 ? "order.paid" : "order.created");
            }
            await("every delivery backing off, half the orders deferred")
                    .atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> count(
                                            database,
                                            "SELECT count(*) FROM deliveries WHERE status = 'RETRYING'"
                                                    + " AND next_attempt_at > now() AND attempts = 1")
                                    == outboxIds.size()
                            && count(database, "SELECT count(*) FROM webhook_inbox WHERE status = 'DEFERRED'")
                                    == ORDERS / 2);
            Map<String, Instant> recordedNext = new HashMap<>();
            database.useHandle(h -> h.createQuery("""
                            SELECT outbox_id::text AS id, next_attempt_at FROM deliveries""")
                    .map((rs, ctx) -> recordedNext.put(
                            rs.getString("id"),
                            rs.getTimestamp("next_attempt_at").toInstant()))
                    .list());

            production.killTemporal();
            // Partners keep sending while the engine is away: intake needs only the database.
            for (int i = 0; i < ORDERS; i++) {
                sendInbound(production, api, orders.get(i), i % 2 == 0 ? "order.created" : "order.paid");
            }
            production.replaceTemporalWithAnEmptyOne("temporal-2");
            int seenBefore = relaybox.output().length();
            await("Relaybox refused by the new Temporal, which lacks its namespace")
                    .atMost(Duration.ofMinutes(1))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> relaybox.output()
                            .substring(seenBefore)
                            .contains("Namespace " + NAMESPACE + " is not found"));
            int seenBeforeSetup = relaybox.output().length();
            production.setUpTemporal("temporal-2-setup");
            await("Relaybox finds the new Temporal empty and says so once")
                    .atMost(Duration.ofMinutes(1))
                    .pollInterval(Duration.ofMillis(200))
                    .until(() -> relaybox.output().substring(seenBeforeSetup).contains("the engine lost its state"));

            // A dead letter is final: waiting on for the events it stopped would only delay the failure.
            await("every outbound event delivered")
                    .atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofSeconds(1))
                    .failFast(
                            "an event was dead-lettered",
                            () -> count(database, "SELECT count(*) FROM dead_letters") > 0)
                    .until(() -> receiver.deliveredIds().containsAll(outboxIds));
            await("every order paid")
                    .atMost(Duration.ofMinutes(3))
                    .pollInterval(Duration.ofSeconds(1))
                    .failFast(
                            "an event was dead-lettered",
                            () -> count(database, "SELECT count(*) FROM dead_letters") > 0)
                    .until(() -> orders.stream()
                            .allMatch(order -> "paid"
                                    .equals(entity(production, api, order)
                                            .path("state")
                                            .asText())));

            int delivered = (int)
                    outboxIds.stream().filter(receiver.deliveredIds()::contains).count();
            int deliveredTwice = (int)
                    outboxIds.stream().filter(id -> receiver.successes(id) > 1).count();
            int applied = 0;
            int appliedTwice = 0;
            for (String order : orders) {
                Map<String, Integer> byType = new HashMap<>();
                entity(production, api, order)
                        .path("events")
                        .forEach(event -> byType.merge(event.path("eventType").asText(), 1, Integer::sum));
                applied += byType.size();
                appliedTwice += (int)
                        byType.values().stream().filter(times -> times > 1).count();
            }
            int deadLettered = count(database, "SELECT count(*) FROM dead_letters");
            int eventsIn = outboxIds.size() + 2 * ORDERS;
            // Nothing here is meant to be dead-lettered: every dead letter is a wrong one.
            new FaultFigures(
                            "Temporal process killed and restarted, all engine state lost (production-mode setup)",
                            EngineLossIT.class.getSimpleName(),
                            eventsIn,
                            delivered + applied,
                            eventsIn - delivered - applied,
                            deliveredTwice + appliedTwice,
                            deadLettered,
                            deadLettered)
                    .print()
                    .assertTargets();
            assertThat(delivered + applied).isEqualTo(eventsIn);
            assertThat(deliveredTwice + appliedTwice)
                    .as("delivered or applied twice")
                    .isZero();
            assertThat(deadLettered).as("dead letters").isZero();
            assertThat(relaybox.output().split("the engine lost its state", -1))
                    .as("warnings that the engine lost its state")
                    .hasSize(2);
            for (String outboxId : outboxIds) {
                // Attempt 2 came no earlier than the row said before the kill; the count went on from there.
                assertThat(receiver.arrivals(outboxId))
                        .as("requests for %s", outboxId)
                        .hasSize(3);
                assertThat(receiver.arrivals(outboxId).get(1))
                        .as("attempt 2 of %s", outboxId)
                        .isAfterOrEqualTo(recordedNext.get(outboxId));
                List<Integer> attempts = database.withHandle(h -> h.createQuery("""
                                SELECT a.attempt FROM delivery_attempts a JOIN deliveries d ON d.id = a.delivery_id
                                 WHERE d.outbox_id = CAST(:id AS uuid) ORDER BY a.attempt""")
                        .bind("id", outboxId)
                        .mapTo(Integer.class)
                        .list());
                assertThat(attempts).as("attempt numbers of %s", outboxId).containsExactly(1, 2, 3);
            }
        }
    }

    private static String sendOutbound(Production production, String api, String eventType, String id)
            throws IOException {
        HttpResponse<String> accepted = production.post(
                api + "/outbox",
                Production.PRODUCER_TOKEN,
                Map.of(),
                "{\"eventType\":\"" + eventType + "\",\"aggregateType\":\"drill\",\"aggregateId\":\"" + id + "\","
                        + "\"payload\":{\"id\":\"" + id + "\"}}");
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        return JSON.readTree(accepted.body()).path("id").asText();
    }

    private static void sendInbound(Production production, String api, String order, String type) {
        HttpResponse<String> receipt =
                production.postShopWebhook(api, Production.SHOP_SECRET, type + "-" + order, type, order);
        assertThat(receipt.statusCode()).as(receipt.body()).isEqualTo(200);
    }

    private static JsonNode entity(Production production, String api, String order) {
        try {
            return JSON.readTree(production
                    .get(api + "/entities/order/" + order, Production.PRODUCER_TOKEN)
                    .body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static int count(Jdbi database, String sql) {
        return database.withHandle(h -> h.createQuery(sql).mapTo(int.class).one());
    }

    /** A receiver on 127.0.0.1 that answers 503 to the first requests of each webhook id, then 200. */
    private static final class FailingFirstReceiver implements AutoCloseable {
        private record Arrival(String webhookId, Instant at, int status) {}

        private final HttpServer server;
        private final int failures;
        private final Map<String, AtomicInteger> requests = new ConcurrentHashMap<>();
        private final Queue<Arrival> arrivals = new ConcurrentLinkedQueue<>();

        FailingFirstReceiver(int failures) throws IOException {
            this.failures = failures;
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 50);
            server.setExecutor(Executors.newFixedThreadPool(4));
            server.createContext("/hooks", exchange -> {
                Instant at = Instant.now();
                try (InputStream in = exchange.getRequestBody()) {
                    in.readAllBytes();
                }
                String webhookId = exchange.getRequestHeaders().getFirst("webhook-id");
                int n = requests.computeIfAbsent(webhookId, id -> new AtomicInteger())
                        .incrementAndGet();
                int status = n <= this.failures ? 503 : 200;
                arrivals.add(new Arrival(webhookId, at, status));
                exchange.sendResponseHeaders(status, -1);
                exchange.close();
            });
            server.start();
        }

        String url(int endpoint) {
            return "http://127.0.0.1:" + server.getAddress().getPort() + "/hooks/" + endpoint;
        }

        List<String> deliveredIds() {
            return arrivals.stream()
                    .filter(a -> a.status() == 200)
                    .map(Arrival::webhookId)
                    .distinct()
                    .toList();
        }

        long successes(String webhookId) {
            return arrivals.stream()
                    .filter(a -> a.webhookId().equals(webhookId) && a.status() == 200)
                    .count();
        }

        /** When each request for the webhook arrived, in order. */
        List<Instant> arrivals(String webhookId) {
            return arrivals.stream()
                    .filter(a -> a.webhookId().equals(webhookId))
                    .map(Arrival::at)
                    .sorted()
                    .toList();
        }

        @Override
        public void close() {
            server.stop(0);
        }
    }
}
