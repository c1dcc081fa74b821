package dev.relaybox.service.production;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.RealTemporal;
import dev.relaybox.service.ScratchDirectories;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.stream.Collectors;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * The crash drill at CI size, on the dev-server engine: Relaybox from the jar killed with kill -9 while outbox events
 * are being delivered and paid-before-created orders wait deferred, then started again on the same data directory.
 * Nothing is lost, nothing applied twice, and the deferred orders are paid. (Its timing is the benchmark's.)
 */
class CrashDrillIT {
    private static final String SHOP_SECRET = "whsec_cmVsYXlib3gtZGV2ZWxvcG1lbnQtc2VjcmV0LTAwMQ==";
    private static final int EVENTS = 40;
    private static final int ORDERS = 20;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private String api;

    @Test
    void killMinus9MidFlightThenRestartLosesNothingAppliesNothingTwiceAndPaysTheDeferredOrders() throws Exception {
        Path cli = RealTemporal.cli();
        Path data = ScratchDirectories.create("relaybox-it-drill");
        Map<String, String> environment = EmbeddedJar.environment(data);
        environment.put("TEMPORAL_CLI", cli.toString());
        environment.put("TEMPORAL_EMBEDDED_ENGINE", "dev-server");
        api = "http://127.0.0.1:" + environment.get("PORT");
        Jdbi db = Jdbi.create(
                "jdbc:postgresql://127.0.0.1:" + environment.get("EMBEDDED_POSTGRES_PORT") + "/postgres",
                "postgres",
                "");

        try (TestReceiver receiver = new TestReceiver()) {
            JavaProcess first = EmbeddedJar.start("drill-first", environment);
            post(
                    api + "/admin/endpoints",
                    "Bearer dev-admin-token",
                    "{\"name\":\"drill\",\"url\":\"" + receiver.url("/drill") + "\",\"eventTypes\":[\"drill.*\"]}");
            // Half the orders are paid before they are created: those wait deferred across the kill.
            for (int i = 0; i < ORDERS / 2; i++) {
                shop("order.paid", i);
            }
            await("the early payments deferred")
                    .atMost(Duration.ofMinutes(2))
                    .until(() ->
                            count(db, "SELECT count(*) FROM webhook_inbox WHERE status = 'DEFERRED'") == ORDERS / 2);
            db.useHandle(h -> h.execute(
                    "INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload) SELECT 'drill', "
                            + "'d-' || i, 'drill.sent', jsonb_build_object('n', i) FROM generate_series(1, ?) i",
                    EVENTS));
            for (int i = 0; i < ORDERS; i++) {
                shop("order.created", i);
            }
            await("the first deliveries")
                    .atMost(Duration.ofMinutes(1))
                    .until(() -> !ok(receiver).isEmpty());
            first.kill();

            try (JavaProcess second = EmbeddedJar.start("drill-second", environment)) {
                for (int i = ORDERS / 2; i < ORDERS; i++) {
                    shop("order.paid", i);
                }
                await("every event delivered and every order paid")
                        .atMost(Duration.ofMinutes(3))
                        .pollInterval(Duration.ofMillis(250))
                        .until(() -> ok(receiver).size() == EVENTS
                                && count(db, "SELECT count(*) FROM entities WHERE state = 'paid'") == ORDERS);
                // Outbound is at least once: a delivery the receiver answered just before the kill, unrecorded, is sent
                // again with the same webhook-id (receivers dedupe by it). What must hold is that every event arrived;
                // inbound, each transition is applied exactly once.
                assertThat(count(db, "SELECT count(*) FROM entities WHERE aggregate_type = 'order' AND version <> 2"))
                        .as("orders with a transition applied twice")
                        .isZero();
                assertThat(count(db, "SELECT count(*) FROM webhook_inbox WHERE status <> 'PROCESSED'"))
                        .isZero();
                assertThat(count(db, "SELECT count(*) FROM dead_letters")).isZero();
            }
        }
    }

    /** 2xx answers per webhook-id at the drill's path. */
    private static Map<String, Long> ok(TestReceiver receiver) {
        return receiver.received("/drill").stream()
                .filter(r -> r.status() / 100 == 2)
                .collect(Collectors.groupingBy(r -> r.header("webhook-id"), Collectors.counting()));
    }

    private void shop(String type, int order) throws Exception {
        String id = "drill-" + order + "-" + type;
        String body = "{\"type\":\"" + type + "\",\"data\":{\"orderId\":\"drill-" + order + "\"}}";
        String timestamp = Long.toString(Instant.now().getEpochSecond());
        HttpResponse<String> answer = http.send(
                HttpRequest.newBuilder(URI.create(api + "/webhooks/shop"))
                        .header("content-type", "application/json")
                        .header("webhook-id", id)
                        .header("webhook-timestamp", timestamp)
                        .header("webhook-signature", Signatures.standardWebhooks(SHOP_SECRET, id, timestamp, body))
                        .POST(HttpRequest.BodyPublishers.ofString(body))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(200);
    }

    private void post(String url, String authorization, String json) throws Exception {
        HttpResponse<String> answer = http.send(
                HttpRequest.newBuilder(URI.create(url))
                        .header("content-type", "application/json")
                        .header("authorization", authorization)
                        .POST(HttpRequest.BodyPublishers.ofString(json))
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).as(answer.body()).isEqualTo(201);
    }

    /** A count, or -1 while the database does not answer (Relaybox is starting it again). */
    private static int count(Jdbi db, String sql) {
        try {
            return db.withHandle(h -> h.createQuery(sql).mapTo(int.class).one());
        } catch (RuntimeException notYet) {
            return -1;
        }
    }
}
