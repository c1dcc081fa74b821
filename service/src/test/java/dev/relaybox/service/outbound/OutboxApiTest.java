package dev.relaybox.service.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.outbound.Outbox;
import dev.relaybox.activities.outbound.OutboxEvent;
import dev.relaybox.activities.outbound.StandardWebhooksVerifier;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.client.Invocation;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The producer API and the admin API through the running application, delivering to a real local receiver. */
@ExtendWith(DropwizardExtensionsSupport.class)
class OutboxApiTest {
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(TestApp.freePort(),
            ConfigOverride.config("outbox.aggregateTypes", "order,invoice"),
            ConfigOverride.config("outbox.maxPayloadSize", "2KiB"),
            ConfigOverride.config("delivery.retryDelays", "1s,1s"),
            ConfigOverride.config("delivery.jitter", "0"));

    static String secret;

    @BeforeAll
    static void registerEndpoints() {
        Response created = admin("/admin/endpoints").post(Entity.json(Map.of(
                "name", "shop", "url", RECEIVER.url("/shop"), "eventTypes", java.util.List.of("order.*"))));
        assertThat(created.getStatus()).isEqualTo(201);
        secret = created.readEntity(JsonNode.class).path("secret").asText();
        assertThat(secret).startsWith("whsec_");
        Response failing = admin("/admin/endpoints").post(Entity.json(Map.of(
                "name", "down", "url", RECEIVER.url("/down"), "eventTypes", java.util.List.of("invoice.*"))));
        assertThat(failing.getStatus()).isEqualTo(201);
        RECEIVER.script("/down", TestReceiver.Reply.of(503));
    }

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void postedEventArrivesSignedAtTheReceiver() throws Exception {
        Response response = producer("/outbox").post(Entity.json(
                Map.of("eventType", "order.shipped", "aggregateType", "order", "aggregateId", "A-1",
                        "payload", Map.of("orderId", "A-1", "carrier", "DHL"))));

        assertThat(response.getStatus()).isEqualTo(202);
        String id = response.readEntity(JsonNode.class).path("id").asText();
        TestReceiver.Received request = awaitReceived("/shop", id);
        assertThat(StandardWebhooksVerifier.verify(secret, request.header("webhook-id"),
                request.header("webhook-timestamp"), request.body(), request.header("webhook-signature"))).isTrue();
        assertThat(new ObjectMapperHolder().read(request.body()).path("carrier").asText()).isEqualTo("DHL");
    }

    @Test
    void committedEnqueueIsDeliveredAndRolledBackOneIsNot() throws Exception {
        Jdbi jdbi = jdbi();
        int before = count(jdbi);
        try {
            jdbi.useTransaction(h -> {
                Outbox.enqueue(h, new OutboxEvent("order.cancelled", "order", "R-1", "{}"));
                throw new IllegalStateException("business change failed");
            });
        } catch (IllegalStateException expected) {
            // the business change and its notification roll back together
        }
        UUID committed = jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "C-1", "{}")));

        awaitReceived("/shop", committed.toString());
        assertThat(count(jdbi)).isEqualTo(before + 1);
    }

    @Test
    void sameIdempotencyKeyAndBodyReturnsTheSameRowWhileADifferentBodyConflicts() {
        Map<String, Object> body = Map.of("eventType", "order.paid", "aggregateType", "order", "aggregateId", 77,
                "payload", Map.of("amount", 10));
        Response first = producer("/outbox").header("Idempotency-Key", "pay-77").post(Entity.json(body));
        Response again = producer("/outbox").header("Idempotency-Key", "pay-77").post(Entity.json(body));
        Response other = producer("/outbox").header("Idempotency-Key", "pay-77").post(Entity.json(
                Map.of("eventType", "order.paid", "aggregateType", "order", "aggregateId", 77,
                        "payload", Map.of("amount", 11))));

        assertThat(first.getStatus()).isEqualTo(202);
        assertThat(again.getStatus()).isEqualTo(200);
        JsonNode duplicate = again.readEntity(JsonNode.class);
        assertThat(duplicate.path("id").asText()).isEqualTo(first.readEntity(JsonNode.class).path("id").asText());
        assertThat(duplicate.path("status").asText()).isEqualTo("duplicate");
        assertThat(other.getStatus()).isEqualTo(409);
        assertThat(other.readEntity(JsonNode.class).path("error").asText()).isEqualTo("idempotency_key_reused");
    }

    @Test
    void badInputIsRefusedWithAReasonAndStoresNothing() {
        Jdbi jdbi = jdbi();
        int before = count(jdbi);

        assertError(producer("/outbox").post(Entity.entity("{\"eventType\": ", MediaType.APPLICATION_JSON)),
                400, "invalid_json");
        assertError(producer("/outbox").post(Entity.json(Map.of("aggregateType", "order", "aggregateId", "1",
                "payload", Map.of()))), 400, "invalid_request");
        assertError(producer("/outbox").post(Entity.json(Map.of("eventType", "order.paid", "aggregateType", "ship",
                "aggregateId", "1", "payload", Map.of()))), 422, "unknown_aggregate_type");
        assertError(producer("/outbox").post(Entity.json(Map.of("eventType", "order.paid", "aggregateType", "order",
                "aggregateId", "1", "payload", Map.of("blob", "x".repeat(4000))))), 413, "payload_too_large");
        assertError(producer("/outbox").post(Entity.json(Map.of("eventType", "order.paid", "aggregateType", "order",
                "aggregateId", "1", "payload", Map.of(), "extra", 1))), 400, "unknown_field");
        assertError(producer("/outbox").post(Entity.entity("eventType=x", MediaType.APPLICATION_FORM_URLENCODED)),
                415, "unsupported_media_type");
        assertError(APP.client().target(url("/outbox")).request().post(Entity.json(Map.of())), 401, "unauthorized");

        assertThat(count(jdbi)).isEqualTo(before);
    }

    @Test
    void endpointWithUnsupportedSchemeIsRefused() {
        assertError(admin("/admin/endpoints").post(Entity.json(Map.of("name", "ftp", "url", "ftp://example.com/x"))),
                422, "url_refused");
    }

    @Test
    void receiverDownForTheWholeScheduleEndsAsADeadLetterVisibleInTheAdminApi() {
        Response response = producer("/outbox").post(Entity.json(Map.of("eventType", "invoice.issued",
                "aggregateType", "invoice", "aggregateId", "I-9", "payload", Map.of("total", 5))));
        String outboxId = response.readEntity(JsonNode.class).path("id").asText();

        JsonNode deadLettered = await().atMost(Duration.ofSeconds(30)).until(
                () -> admin("/admin/deliveries?status=dead_lettered&eventType=invoice.issued").get(JsonNode.class)
                        .path("items"),
                items -> items.size() == 1);
        JsonNode delivery = deadLettered.get(0);
        assertThat(delivery.path("outboxId").asText()).isEqualTo(outboxId);
        assertThat(delivery.path("attempts").asInt()).isEqualTo(3);
        assertThat(delivery.path("temporalUrl").asText()).endsWith("/workflows/outbox-" + outboxId);

        JsonNode detail = admin("/admin/deliveries/" + delivery.path("id").asText()).get(JsonNode.class);
        assertThat(detail.path("attempts")).hasSize(3);
        assertThat(detail.path("attempts").get(0).path("statusCode").asInt()).isEqualTo(503);
        assertThat(detail.path("payload").path("total").asInt()).isEqualTo(5);

        JsonNode deadLetters = admin("/admin/dead-letters").get(JsonNode.class).path("items");
        assertThat(deadLetters.findValuesAsText("reference")).contains(delivery.path("id").asText());
        assertThat(RECEIVER.received("/down")).hasSize(3);
    }

    private static TestReceiver.Received awaitReceived(String path, String webhookId) {
        return await().atMost(Duration.ofSeconds(30)).until(
                () -> RECEIVER.received(path).stream().filter(r -> webhookId.equals(r.header("webhook-id")))
                        .findFirst().orElse(null),
                java.util.Objects::nonNull);
    }

    private static void assertError(Response response, int status, String error) {
        assertThat(response.getStatus()).isEqualTo(status);
        JsonNode body = response.readEntity(JsonNode.class);
        assertThat(body.path("error").asText()).isEqualTo(error);
        assertThat(body.path("reason").asText()).isNotBlank();
    }

    private static Jdbi jdbi() {
        return Jdbi.create(APP.getConfiguration().getDatabase().getUrl(), "postgres", "");
    }

    private static int count(Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM outbox_events").mapTo(int.class).one());
    }

    private static String url(String path) {
        return "http://localhost:" + APP.getLocalPort() + path;
    }

    private static Invocation.Builder producer(String path) {
        return APP.client().target(url(path)).request().header("Authorization", "Bearer " + TestApp.PRODUCER_TOKEN);
    }

    private static Invocation.Builder admin(String path) {
        return APP.client().target(url(path)).request().header("Authorization", "Bearer " + TestApp.ADMIN_TOKEN);
    }

    private static final class ObjectMapperHolder {
        JsonNode read(byte[] body) throws java.io.IOException {
            return APP.getObjectMapper().readTree(body);
        }
    }
}
