package dev.relaybox.service.inbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.service.Api;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.ShopWebhooks;
import dev.relaybox.service.TestApp;
import dev.relaybox.service.config.AuthFactory;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Partner webhooks through the running application: the example partner "shop" signs with Standard Webhooks,
 * events drive the example order state machine. Signatures are computed here from the spec. Each refusal of the
 * intake is tested alone in {@link WebhookIntakeResourceTest}.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class InboundApiTest {
    // A long recheck: anything that happens quickly was caused by a release signal.
    static final DropwizardAppExtension<RelayboxConfiguration> APP =
            TestApp.extension(ConfigOverride.config("inbox.recheckInterval", "1h"));
    static final Api API = new Api(APP);

    @Test
    void shippedBeforePaidIsDeferredThenAppliedWhenPaidArrives() {
        String order = "ord-" + System.nanoTime();
        assertThat(send("evt-c-" + order, event("order.created", order)).status())
                .isEqualTo(200);
        awaitEntity(order, "created");

        Answer shipped = send("evt-s-" + order, event("order.shipped", order));
        assertThat(shipped.text("status")).isEqualTo("accepted");
        JsonNode deferred = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> API.adminGet("/admin/inbox/" + shipped.text("id")).path("event"),
                        e -> e.path("status").asText().equals("DEFERRED"));
        assertThat(deferred.path("deferReason").asText()).isEqualTo("waiting for order.paid: entity is created");

        send("evt-p-" + order, event("order.paid", order));

        JsonNode entity = awaitEntity(order, "shipped");
        assertThat(entity.path("version").asInt()).isEqualTo(3);
        assertThat(entity.path("events").findValuesAsText("eventType"))
                .containsExactly("order.created", "order.paid", "order.shipped");
    }

    @Test
    void sameEventPostedTenTimesConcurrentlyIsStoredAndAppliedOnce() throws Exception {
        String order = "ord-" + System.nanoTime();
        String body = event("order.created", order);
        ExecutorService clients = Executors.newFixedThreadPool(10);
        List<Callable<Answer>> posts = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            posts.add(() -> send("evt-dup-" + order, body));
        }
        List<String> statuses = new ArrayList<>();
        for (Future<Answer> answer : clients.invokeAll(posts)) {
            assertThat(answer.get().status()).isEqualTo(200);
            statuses.add(answer.get().text("status"));
        }
        clients.shutdown();

        assertThat(statuses).containsOnly("accepted", "duplicate").containsOnlyOnce("accepted");
        assertThat(awaitEntity(order, "created").path("version").asInt()).isEqualTo(1);
        int rows = API.jdbi()
                .withHandle(h -> h.createQuery("SELECT count(*) FROM webhook_inbox WHERE partner_event_id = :id")
                        .bind("id", "evt-dup-" + order)
                        .mapTo(int.class)
                        .one());
        assertThat(rows).isEqualTo(1);
    }

    @Test
    void poisonEventIsAcceptedThenQuarantinedAsADeadLetter() {
        Answer receipt = send("evt-poison-" + System.nanoTime(), "{\"type\": \"order.paid\", \"data\": {}}");

        JsonNode event = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> API.adminGet("/admin/inbox/" + receipt.text("id")).path("event"),
                        e -> e.path("status").asText().equals("QUARANTINED"));
        assertThat(event.path("lastError").asText()).contains("no aggregate id");
        assertThat(API.adminGet("/admin/dead-letters?source=inbox")
                        .path("items")
                        .findValuesAsText("reference"))
                .contains(receipt.text("id"));
    }

    @Test
    void releaseFromTheAdminApiAppliesADeferredEventWhosePreconditionNowHolds() {
        String order = "ord-" + System.nanoTime();
        send("evt-c-" + order, event("order.created", order));
        awaitEntity(order, "created");
        String shippedId = send("evt-s-" + order, event("order.shipped", order)).text("id");
        await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> API.adminGet("/admin/inbox/" + shippedId)
                                .path("event")
                                .path("status")
                                .asText(),
                        "DEFERRED"::equals);
        // An operator settles the payment by hand; nothing signals the deferred event.
        API.jdbi()
                .useHandle(h -> h.createUpdate(
                                "UPDATE entities SET state = 'paid', version = version + 1 WHERE aggregate_type = 'order' AND aggregate_id = :id")
                        .bind("id", order)
                        .execute());

        Answer released = API.admin("POST", "/admin/inbox/" + shippedId + "/release", Map.of());

        assertThat(released.status()).isEqualTo(200);
        assertThat(awaitEntity(order, "shipped").path("version").asInt()).isEqualTo(3);
        API.admin("POST", "/admin/inbox/" + shippedId + "/release", Map.of()).assertError(409, "not_deferred");
    }

    @Test
    void metricsCountIntakeResultsAndShowTemporalWorkerMetrics() {
        send("evt-m-" + System.nanoTime(), event("order.created", "metrics-" + System.nanoTime()));
        post(
                "/webhooks/shop",
                "evt-m-bad",
                Instant.now().getEpochSecond(),
                "{}",
                "whsec_" + Base64.getEncoder().encodeToString("wrong-secret-wrong-secret-wrong".getBytes()));

        String metrics = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> APP.client()
                                .target("http://localhost:" + APP.getAdminPort() + "/metrics")
                                .request()
                                .get(String.class),
                        text -> text.contains("temporal_"));

        assertThat(metrics).contains("relaybox_inbox_requests_total{partner=\"shop\",reason=\"\",result=\"accepted\"}");
        assertThat(metrics).contains("reason=\"invalid_signature\",result=\"rejected\"");
        assertThat(metrics).contains("relaybox_dead_letters_open", "relaybox_dispatcher_lag_seconds");
    }

    static String event(String type, String orderId) {
        return "{\"type\": \"" + type + "\", \"data\": {\"orderId\": \"" + orderId + "\"}}";
    }

    private static Answer send(String eventId, String body) {
        return post("/webhooks/shop", eventId, Instant.now().getEpochSecond(), body, AuthFactory.DEV_PARTNER_SECRET);
    }

    private static Answer post(String path, String eventId, long timestamp, String body, String secret) {
        return post(path, eventId, timestamp, body, secret, body);
    }

    /** Signs {@code signedBody} but sends {@code body}: equal unless the test tampers. */
    private static Answer post(
            String path, String eventId, long timestamp, String body, String secret, String signedBody) {
        return Answer.of(API.request(path, null)
                .header("webhook-id", eventId)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", ShopWebhooks.signature(secret, eventId, timestamp, signedBody))
                .post(Entity.entity(body, MediaType.APPLICATION_JSON)));
    }

    private static JsonNode awaitEntity(String orderId, String state) {
        return await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> {
                            Answer answer = API.producer("GET", "/entities/order/" + orderId, null);
                            return answer.status() == 200 ? answer.body() : null;
                        },
                        entity ->
                                entity != null && entity.path("state").asText().equals(state));
    }
}
