package dev.relaybox.service.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.outbound.StandardWebhooksVerifier;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.producer.JdbcOutbox;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.service.Api;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.MediaType;
import java.sql.Connection;
import java.sql.DriverManager;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ConfigOverride.config("outbox.aggregateTypes", "order,invoice"),
            ConfigOverride.config("outbox.maxPayloadSize", "2KiB"),
            ConfigOverride.config("delivery.retryDelays", "1s,1s"),
            ConfigOverride.config("delivery.jitter", "0"));

    static final Api API = new Api(APP);
    static String secret;

    @BeforeAll
    static void registerEndpoints() {
        Answer created = API.admin(
                "POST",
                "/admin/endpoints",
                Map.of("name", "shop", "url", RECEIVER.url("/shop"), "eventTypes", List.of("order.*")));
        assertThat(created.status()).isEqualTo(201);
        secret = created.text("secret");
        assertThat(secret).startsWith("whsec_");
        Answer failing = API.admin(
                "POST",
                "/admin/endpoints",
                Map.of("name", "down", "url", RECEIVER.url("/down"), "eventTypes", List.of("invoice.*")));
        assertThat(failing.status()).isEqualTo(201);
        RECEIVER.script("/down", TestReceiver.Reply.of(503));
    }

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void postedEventArrivesSignedAtTheReceiver() throws Exception {
        Answer response = API.enqueue("order.shipped", "order", "A-1", Map.of("orderId", "A-1", "carrier", "DHL"));

        assertThat(response.status()).isEqualTo(202);
        TestReceiver.Received request = awaitReceived("/shop", response.text("id"));
        assertThat(StandardWebhooksVerifier.verify(
                        secret,
                        request.header("webhook-id"),
                        request.header("webhook-timestamp"),
                        request.body(),
                        request.header("webhook-signature")))
                .isTrue();
        JsonNode envelope = APP.getObjectMapper().readTree(request.body());
        assertThat(envelope.path("type").asText()).isEqualTo("order.shipped");
        assertThat(envelope.path("data").path("carrier").asText()).isEqualTo("DHL");
    }

    @Test
    void committedEnqueueIsDeliveredAndRolledBackOneIsNot() throws Exception {
        Jdbi jdbi = API.jdbi();
        int before = count(jdbi);
        try {
            jdbi.useTransaction(h -> {
                Outbox.enqueue(h, new OutboxEvent("order.cancelled", "order", "R-1", "{}"));
                throw new IllegalStateException("business change failed");
            });
        } catch (IllegalStateException expected) {
            // the business change and its notification roll back together
        }
        UUID committed =
                jdbi.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", "order", "C-1", "{}")));

        awaitReceived("/shop", committed.toString());
        assertThat(count(jdbi)).isEqualTo(before + 1);
    }

    @Test
    void plainJdbcProducerDeliversWhatItCommitsAndNothingItRollsBack() throws Exception {
        Jdbi jdbi = API.jdbi();
        int before = count(jdbi);
        UUID rolledBack;
        UUID committed;
        // What a Spring, Hibernate or jOOQ producer has: the JDBC connection of its own transaction.
        try (Connection connection =
                DriverManager.getConnection(APP.getConfiguration().getDatabase().getUrl(), "postgres", "")) {
            connection.setAutoCommit(false);
            rolledBack = JdbcOutbox.enqueue(connection, new OutboxEvent("order.refunded", "order", "J-1", "{}"));
            connection.rollback();
            committed = JdbcOutbox.enqueue(
                    connection, new OutboxEvent("order.refunded", "order", "J-2", "{\"amount\": 5}"));
            connection.commit();
        }

        TestReceiver.Received request = awaitReceived("/shop", committed.toString());
        assertThat(APP.getObjectMapper()
                        .readTree(request.body())
                        .path("data")
                        .path("amount")
                        .asInt())
                .isEqualTo(5);
        assertThat(count(jdbi)).isEqualTo(before + 1);
        int rolledBackRows = jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM outbox_events WHERE id = :id")
                .bind("id", rolledBack)
                .mapTo(int.class)
                .one());
        assertThat(rolledBackRows).isZero();
        assertThat(RECEIVER.received("/shop"))
                .noneMatch(r -> rolledBack.toString().equals(r.header("webhook-id")));
    }

    @Test
    void sameIdempotencyKeyAndBodyReturnsTheSameRowWhileADifferentBodyConflicts() {
        Map<String, Object> body = Map.of(
                "eventType",
                "order.paid",
                "aggregateType",
                "order",
                "aggregateId",
                77,
                "payload",
                Map.of("amount", 10));
        Answer first = withKey("pay-77", body);
        Answer again = withKey("pay-77", body);
        Answer other = withKey(
                "pay-77",
                Map.of(
                        "eventType",
                        "order.paid",
                        "aggregateType",
                        "order",
                        "aggregateId",
                        77,
                        "payload",
                        Map.of("amount", 11)));

        assertThat(first.status()).isEqualTo(202);
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.text("id")).isEqualTo(first.text("id"));
        assertThat(again.text("status")).isEqualTo("duplicate");
        other.assertError(409, "idempotency_key_reused");
    }

    @Test
    void badInputIsRefusedWithAReasonAndStoresNothing() {
        Jdbi jdbi = API.jdbi();
        int before = count(jdbi);

        raw(Entity.entity("{\"eventType\": ", MediaType.APPLICATION_JSON)).assertError(400, "invalid_json");
        API.producer("POST", "/outbox", Map.of("aggregateType", "order", "aggregateId", "1", "payload", Map.of()))
                .assertError(400, "invalid_request");
        API.enqueue("order.paid", "ship", "1", Map.of()).assertError(422, "unknown_aggregate_type");
        API.enqueue("order.paid", "order", "1", Map.of("blob", "x".repeat(4000)))
                .assertError(413, "payload_too_large");
        API.producer(
                        "POST",
                        "/outbox",
                        Map.of(
                                "eventType", "order.paid",
                                "aggregateType", "order",
                                "aggregateId", "1",
                                "payload", Map.of(),
                                "extra", 1))
                .assertError(400, "unknown_field");
        raw(Entity.entity("eventType=x", MediaType.APPLICATION_FORM_URLENCODED))
                .assertError(415, "unsupported_media_type");
        API.anonymous("POST", "/outbox", Map.of()).assertError(401, "unauthorized");

        assertThat(count(jdbi)).isEqualTo(before);
    }

    @Test
    void jsonThatPostgresCannotStoreIsRefusedWithAReasonAndStoresNothing() {
        Jdbi jdbi = API.jdbi();
        int before = count(jdbi);
        String envelope =
                "{\"eventType\": \"order.paid\", \"aggregateType\": \"order\", \"aggregateId\": %s, \"payload\": %s}";

        for (String body : List.of(
                envelope.formatted("\"J-1\"", "{\"note\": \"a\\u0000b\"}"),
                envelope.formatted("\"J-\\u0000\"", "{}"),
                envelope.formatted("\"J-2\"", "{\"note\": \"\\ud800\"}"),
                envelope.formatted("\"J-3\"", "{\"\\udc00x\": 1}"),
                envelope.formatted("\"J-4\"", "{}") + " {\"more\": 1}",
                envelope.formatted("\"J-5\"", "{\"n\": 1e999999}"))) {
            raw(Entity.entity(body, MediaType.APPLICATION_JSON)).assertError(400, "invalid_json");
        }
        assertThat(count(jdbi)).isEqualTo(before);
    }

    @Test
    void producersCannotEmitRelayboxEventTypes() {
        Jdbi jdbi = API.jdbi();
        int before = count(jdbi);

        Answer forged = API.enqueue("relaybox.dead_letter.created", "order", "1", Map.of("reason", "forged"));
        Answer forgedWithKey = withKey(
                "forged-1",
                Map.of(
                        "eventType",
                        "Relaybox.anything",
                        "aggregateType",
                        "order",
                        "aggregateId",
                        "1",
                        "payload",
                        Map.of()));

        forged.assertError(422, "reserved_event_type");
        forgedWithKey.assertError(422, "reserved_event_type");
        assertThat(count(jdbi)).isEqualTo(before);
    }

    @Test
    void endpointWithUnsupportedSchemeIsRefused() {
        API.admin("POST", "/admin/endpoints", Map.of("name", "ftp", "url", "ftp://example.com/x"))
                .assertError(422, "url_refused");
    }

    @Test
    void receiverDownForTheWholeScheduleEndsAsADeadLetterVisibleInTheAdminApi() {
        String outboxId = API.enqueue("invoice.issued", "invoice", "I-9", Map.of("total", 5))
                .text("id");

        JsonNode deadLettered = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> API.adminGet("/admin/deliveries?status=dead_lettered&eventType=invoice.issued")
                                .path("items"),
                        items -> items.size() == 1);
        JsonNode delivery = deadLettered.get(0);
        assertThat(delivery.path("outboxId").asText()).isEqualTo(outboxId);
        assertThat(delivery.path("attempts").asInt()).isEqualTo(3);
        assertThat(delivery.path("temporalUrl").asText()).endsWith("/workflows/outbox-" + outboxId);

        JsonNode detail =
                API.adminGet("/admin/deliveries/" + delivery.path("id").asText());
        assertThat(detail.path("attempts")).hasSize(3);
        assertThat(detail.path("attempts").get(0).path("statusCode").asInt()).isEqualTo(503);
        assertThat(detail.path("payload").path("total").asInt()).isEqualTo(5);

        JsonNode outboxRow = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> API.adminGet("/admin/outbox?aggregate=invoice:I-9")
                                .path("items")
                                .get(0),
                        row -> row.path("status").asText().equals("PROCESSED"));
        assertThat(outboxRow.path("id").asText()).isEqualTo(outboxId);
        assertThat(outboxRow.path("deliveries").asText()).isEqualTo("DEAD_LETTERED:1");

        JsonNode deadLetters = API.adminGet("/admin/dead-letters").path("items");
        assertThat(deadLetters.findValuesAsText("reference"))
                .contains(delivery.path("id").asText());
        assertThat(RECEIVER.received("/down")).hasSize(3);
    }

    private static TestReceiver.Received awaitReceived(String path, String webhookId) {
        return await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> RECEIVER.received(path).stream()
                                .filter(r -> webhookId.equals(r.header("webhook-id")))
                                .findFirst()
                                .orElse(null),
                        Objects::nonNull);
    }

    private static Answer withKey(String idempotencyKey, Object body) {
        return Answer.of(API.request("/outbox", TestApp.PRODUCER_TOKEN)
                .header("Idempotency-Key", idempotencyKey)
                .post(Entity.json(body)));
    }

    private static Answer raw(Entity<String> body) {
        return Answer.of(API.request("/outbox", TestApp.PRODUCER_TOKEN).post(body));
    }

    private static int count(Jdbi jdbi) {
        return jdbi.withHandle(h -> h.createQuery("SELECT count(*) FROM outbox_events")
                .mapTo(int.class)
                .one());
    }
}
