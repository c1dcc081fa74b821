package dev.relaybox.service.production;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.FaultFigures;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.TestApp;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The scaled-out shape: one {@code api} process and two {@code dispatcher,worker} processes against one
 * PostgreSQL and one Temporal. Outbound and inbound events flow while one worker process is killed with
 * SIGKILL; every event is still delivered and applied, and none is applied twice.
 *
 * <p>{@code -Drelaybox.roles.events=1000} runs the full 1,000 outbound and 1,000 inbound events; the default
 * run uses fewer to keep the build short on a small machine.
 */
class RolesIT {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final int EVENTS = Integer.getInteger("relaybox.roles.events", 200);

    private static Production production;
    private static TestReceiver receiver;
    private static String api;
    private static int apiAdminPort;
    private static final List<JavaProcess> workers = new ArrayList<>();
    private static final List<int[]> workerPorts = new ArrayList<>();

    @BeforeAll
    static void startProcesses() throws Exception {
        production = Production.start("roles");
        receiver = new TestReceiver();
        int apiPort = TestApp.freePort();
        apiAdminPort = TestApp.freePort();
        // One at a time: three JVMs starting at once starve each other on a 2-core machine.
        JavaProcess apiProcess = production.startRelaybox("relaybox-api", environment("api", apiPort, apiAdminPort));
        production.awaitHealthy(apiProcess, apiAdminPort);
        for (int i = 1; i <= 2; i++) {
            int[] ports = {TestApp.freePort(), TestApp.freePort()};
            JavaProcess worker = production.startRelaybox(
                    "relaybox-worker-" + i, environment("dispatcher,worker", ports[0], ports[1]));
            production.awaitHealthy(worker, ports[1]);
            workers.add(worker);
            workerPorts.add(ports);
        }
        api = "http://127.0.0.1:" + apiPort;
    }

    private static Map<String, String> environment(String roles, int port, int adminPort) {
        Map<String, String> variables = Production.operatorVariables();
        variables.put("RELAYBOX_ROLES", roles);
        Map<String, String> environment = production.relayboxEnvironment(variables, port, adminPort);
        // The drill's clock, beyond compose's environment: rows the killed process had claimed but not started are
        // re-drived after seconds rather than the default 5-minute grace, and its attempts retry after seconds.
        environment.put("RECONCILE_INTERVAL", "2s");
        environment.put("RECONCILE_GRACE", "10s");
        environment.put("DELIVERY_RETRY_DELAYS", "[5s, 10s, 20s]");
        return environment;
    }

    @AfterAll
    static void stopProcesses() throws Exception {
        if (receiver != null) {
            receiver.close();
        }
        if (production != null) {
            production.close();
        }
    }

    @Test
    void healthChecksAndPortsFollowTheRoles() throws Exception {
        JsonNode apiHealth = JSON.readTree(production
                .get("http://127.0.0.1:" + apiAdminPort + "/healthcheck", null)
                .body());
        JsonNode workerHealth = JSON.readTree(production
                .get("http://127.0.0.1:" + workerPorts.get(0)[1] + "/healthcheck", null)
                .body());

        assertThat(apiHealth.path("roles").path("message").asText()).isEqualTo("roles api");
        assertThat(apiHealth.has("dispatcher"))
                .as("api process has a dispatcher check")
                .isFalse();
        assertThat(apiHealth.has("worker")).as("api process has a worker check").isFalse();
        assertThat(workerHealth.path("roles").path("message").asText()).isEqualTo("roles dispatcher,worker");
        assertThat(workerHealth.path("dispatcher").path("healthy").asBoolean()).isTrue();
        assertThat(workerHealth.path("worker").path("healthy").asBoolean()).isTrue();
        assertThat(workers.get(0).listeningPorts())
                .as("a worker process serves no API, only its admin port")
                .containsExactly(workerPorts.get(0)[1]);
    }

    @Test
    void everyEventIsDeliveredAndAppliedOnceThoughAWorkerIsKilled() throws Exception {
        HttpResponse<String> endpoint = production.post(
                api + "/admin/endpoints",
                Production.ADMIN_TOKEN,
                Map.of(),
                JSON.writeValueAsString(Map.of(
                        "name", "roles-receiver", "url", receiver.url("/hooks"), "eventTypes", List.of("load.*"))));
        assertThat(endpoint.statusCode()).as(endpoint.body()).isEqualTo(201);

        Map<String, String> outboxIdsByAggregate = new ConcurrentHashMap<>();
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < EVENTS / 2; i++) {
            orders.add("roles-" + UUID.randomUUID());
        }
        ExecutorService senders = Executors.newFixedThreadPool(8);
        List<Future<?>> sent = new ArrayList<>();
        for (int i = 0; i < EVENTS; i++) {
            int n = i;
            sent.add(senders.submit(() -> outboxIdsByAggregate.put("load:tick-" + n, sendOutbound(n))));
            if (i % 2 == 0) {
                String order = orders.get(i / 2);
                sent.add(senders.submit(() -> {
                    sendInbound(order, "order.created");
                    sendInbound(order, "order.paid");
                }));
            }
        }

        await("first deliveries")
                .atMost(Duration.ofMinutes(3))
                .until(() -> deliveredIds().size() >= Math.max(5, EVENTS / 20));
        int deliveredAtKill = deliveredIds().size();
        workers.get(1).kill();
        for (Future<?> future : sent) {
            future.get(5, TimeUnit.MINUTES);
        }
        senders.shutdown();

        assertThat(deliveredAtKill).as("killed mid-flight").isLessThan(EVENTS);
        Set<String> outboxIds = Set.copyOf(outboxIdsByAggregate.values());
        assertThat(outboxIds).hasSize(EVENTS);
        await("every outbound event delivered")
                .atMost(Duration.ofMinutes(8))
                .pollInterval(Duration.ofSeconds(2))
                .untilAsserted(() -> assertThat(deliveredIds()).containsAll(outboxIds));
        await("every order paid")
                .atMost(Duration.ofMinutes(8))
                .pollInterval(Duration.ofSeconds(2))
                .until(() -> orders.stream()
                        .allMatch(order ->
                                "paid".equals(entity(order).path("state").asText())));
        for (String order : orders) {
            JsonNode entity = entity(order);
            assertThat(entity.path("version").asInt())
                    .as("transitions applied to %s", order)
                    .isEqualTo(2);
            Set<String> eventTypes = new HashSet<>();
            entity.path("events")
                    .forEach(event -> eventTypes.add(event.path("eventType").asText()));
            assertThat(entity.path("events")).as("events applied to %s", order).hasSize(2);
            assertThat(eventTypes).containsExactlyInAnyOrder("order.created", "order.paid");
        }
        figures(outboxIdsByAggregate, orders).print().assertTargetsAtLeastOnce();
    }

    /**
     * Outbound events by outbox id (the {@code webhook-id} the receiver saw), inbound ones by partner event id. An
     * order whose version exceeds the events applied to it counts as one event applied twice. Every dead letter is
     * a wrong one here: the receiver always answers 200 and every transition is valid.
     */
    private static FaultFigures figures(Map<String, String> outboxIdsByAggregate, List<String> orders)
            throws IOException {
        List<String> in = new ArrayList<>(outboxIdsByAggregate.values());
        List<String> seen = new ArrayList<>();
        receiver.received().forEach(delivery -> seen.add(delivery.header("webhook-id")));
        for (String order : orders) {
            in.add(inboundEventId(order, "order.created"));
            in.add(inboundEventId(order, "order.paid"));
            JsonNode entity = entity(order);
            List<String> applied = new ArrayList<>();
            entity.path("events")
                    .forEach(event -> applied.add(event.path("partnerEventId").asText()));
            seen.addAll(applied);
            for (int extra = applied.size(); extra < entity.path("version").asInt() && !applied.isEmpty(); extra++) {
                seen.add(applied.get(applied.size() - 1));
            }
        }
        List<String> deadLettered = new ArrayList<>();
        JSON.readTree(production
                        .get(api + "/admin/dead-letters?limit=500", Production.ADMIN_TOKEN)
                        .body())
                .path("items")
                .forEach(deadLetter -> {
                    String aggregate = deadLetter.path("aggregate").asText();
                    deadLettered.add(
                            "OUTBOX".equals(deadLetter.path("source").asText())
                                    ? outboxIdsByAggregate.getOrDefault(aggregate, aggregate)
                                    : inboundEventId(
                                            aggregate.substring(aggregate.indexOf(':') + 1),
                                            deadLetter.path("eventType").asText()));
                });
        return FaultFigures.count(
                "kill -9 of a Relaybox worker process mid-flight (%d outbound, %d inbound)"
                        .formatted(EVENTS, orders.size() * 2),
                RolesIT.class,
                in,
                seen,
                deadLettered);
    }

    private static String inboundEventId(String order, String type) {
        return type + "-" + order;
    }

    private static String sendOutbound(int n) throws Exception {
        HttpResponse<String> accepted = production.post(
                api + "/outbox",
                Production.PRODUCER_TOKEN,
                Map.of(),
                "{\"eventType\":\"load.tick\",\"aggregateType\":\"load\",\"aggregateId\":\"tick-" + n + "\","
                        + "\"payload\":{\"n\":" + n + "}}");
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        return JSON.readTree(accepted.body()).path("id").asText();
    }

    private static void sendInbound(String order, String type) {
        HttpResponse<String> receipt =
                production.postShopWebhook(api, Production.SHOP_SECRET, inboundEventId(order, type), type, order);
        assertThat(receipt.statusCode()).as(receipt.body()).isEqualTo(200);
    }

    private static Set<String> deliveredIds() {
        return receiver.received().stream().map(d -> d.header("webhook-id")).collect(Collectors.toSet());
    }

    private static JsonNode entity(String order) {
        try {
            return JSON.readTree(production
                    .get(api + "/entities/order/" + order, Production.PRODUCER_TOKEN)
                    .body());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
