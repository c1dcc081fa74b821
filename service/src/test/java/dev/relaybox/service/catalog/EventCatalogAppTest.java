package dev.relaybox.service.catalog;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.outbound.TestReceiver;
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
import jakarta.ws.rs.core.Response;
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

/**
 * The catalog through the running application, with unknown types refused: what each way of publishing does with a
 * payload that breaks its type's schema (HTTP: 422 with the failing paths, nothing stored; the producer library and
 * plain SQL: dead-lettered with the reason, never sent to the real receiver), versions, and deprecation.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class EventCatalogAppTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP =
            TestApp.extension(ConfigOverride.config("eventTypes.allowUnknown", "false"));
    static final Api API = new Api(APP);

    static final Map<String, Object> SHIPPED = Map.of(
            "type",
            "object",
            "required",
            List.of("orderId", "carrier"),
            "properties",
            Map.of("orderId", Map.of("type", "string"), "carrier", Map.of("type", "string", "minLength", 2)));

    @BeforeAll
    static void catalogAndReceiver() {
        assertThat(API.admin(
                                "POST",
                                "/admin/endpoints",
                                Map.of("name", "catalog", "url", RECEIVER.url("/hooks"), "eventTypes", List.of("*")))
                        .status())
                .isEqualTo(201);
        assertThat(API.admin(
                                "POST",
                                "/admin/event-types",
                                Map.of(
                                        "name",
                                        "order.shipped",
                                        "description",
                                        "An order left the warehouse",
                                        "schema",
                                        SHIPPED,
                                        "example",
                                        Map.of("orderId", "42", "carrier", "DHL")))
                        .status())
                .isEqualTo(201);
    }

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void httpPublishingRefusesAPayloadOffItsSchemaNamingThePathsAndStoresNothing() {
        int rowsBefore = rows();

        Answer refused = publish("order.shipped", Map.of("orderId", 42, "carrier", "D"));

        refused.assertError(422, "invalid_payload");
        assertThat(refused.text("reason"))
                .contains(
                        "order.shipped version 1",
                        "$.orderId: integer found, string expected",
                        "$.carrier: must be at least 2 characters long");
        assertThat(rows()).isEqualTo(rowsBefore);

        Answer accepted = publish("order.shipped", Map.of("orderId", "42", "carrier", "DHL"));
        assertThat(accepted.status()).isEqualTo(202);
        awaitReceived(accepted.text("id"));
    }

    @Test
    void libraryAndSqlRowsOffTheirSchemaAreDeadLetteredWithTheReasonAndNeverSent() {
        Jdbi jdbi = API.jdbi();
        UUID fromLibrary = jdbi.inTransaction(h -> Outbox.enqueue(
                h, new OutboxEvent("order.shipped", "order", "L-1", "{\"orderId\": \"L-1\", \"carrier\": 7}")));
        UUID fromSql = insertBySql(jdbi, "order.shipped", "{\"carrier\": \"DHL\"}");
        UUID valid = jdbi.inTransaction(h -> Outbox.enqueue(
                h, new OutboxEvent("order.shipped", "order", "L-2", "{\"orderId\": \"L-2\", \"carrier\": \"UPS\"}")));

        assertThat(awaitDeadLetter(fromLibrary).path("reason").asText())
                .contains("payload does not match event type order.shipped version 1", "$.carrier: integer found");
        assertThat(awaitDeadLetter(fromSql).path("reason").asText())
                .contains("$: required property 'orderId' not found");
        awaitReceived(valid.toString());
        assertNeverSent(fromLibrary, fromSql);
    }

    @Test
    void aDeadLetterFixedWithAPayloadStillOffItsSchemaIsRefusedAndOneFixedToFitIsDelivered() {
        UUID row = insertBySql(API.jdbi(), "order.shipped", "{\"orderId\": \"F-1\"}");
        String deadLetter = awaitDeadLetter(row).path("id").asText();
        String replay = "/admin/dead-letters/" + deadLetter + "/replay";

        Answer refused = API.admin(
                "POST", replay, Map.of("payload", Map.of("orderId", "F-1", "carrier", "D"), "reason", "carrier"));

        refused.assertError(422, "invalid_payload");
        assertThat(refused.text("reason")).contains("$.carrier: must be at least 2 characters long");
        assertNeverSent(row);

        Answer fixed = API.admin(
                "POST", replay, Map.of("payload", Map.of("orderId", "F-1", "carrier", "DHL"), "reason", "carrier"));

        assertThat(fixed.status()).as(fixed.body().toString()).isEqualTo(200);
        assertThat(awaitReceived(row.toString())
                        .json()
                        .path("data")
                        .path("carrier")
                        .asText())
                .isEqualTo("DHL");
    }

    @Test
    void unknownTypesAreRefusedOverHttpAndDeadLetteredFromSqlWhenNotAllowed() {
        publish("order.unheard_of", Map.of("orderId", "1")).assertError(422, "unknown_event_type");

        UUID fromSql = insertBySql(API.jdbi(), "order.unheard_of", "{}");

        assertThat(awaitDeadLetter(fromSql).path("reason").asText())
                .contains("order.unheard_of is not in the catalog", "eventTypes.allowUnknown is false");
        assertNeverSent(fromSql);
    }

    @Test
    void aChangedSchemaIsANewVersionAndPublishingFollowsTheLatest() {
        Map<String, Object> v1 = Map.of("type", "object", "required", List.of("amount"));
        Map<String, Object> v2 = Map.of("type", "object", "required", List.of("amountCents"));
        assertThat(API.admin("POST", "/admin/event-types", Map.of("name", "order.paid", "schema", v1))
                        .status())
                .isEqualTo(201);
        publish("order.paid", Map.of("amountCents", 500)).assertError(422, "invalid_payload");

        JsonNode revised = API.admin("PUT", "/admin/event-types/order.paid", Map.of("schema", v2))
                .body();
        JsonNode again = API.admin("PUT", "/admin/event-types/order.paid", Map.of("schema", v2))
                .body();

        assertThat(revised.path("latestVersion").asInt()).isEqualTo(2);
        assertThat(again.path("latestVersion").asInt()).isEqualTo(2);
        JsonNode versions = API.adminGet("/admin/event-types/order.paid").path("versions");
        assertThat(versions).hasSize(2);
        assertThat(versions.get(0).path("schema")).isEqualTo(JSON.valueToTree(v2));
        assertThat(versions.get(1).path("schema")).isEqualTo(JSON.valueToTree(v1));
        assertThat(publish("order.paid", Map.of("amountCents", 500)).status()).isEqualTo(202);
        publish("order.paid", Map.of("amount", 5)).assertError(422, "invalid_payload");
    }

    @Test
    void refusedDefinitionsAnswerWithTheReasonAndWriteNothing() {
        Answer badSchema =
                API.admin("POST", "/admin/event-types", Map.of("name", "order.bad", "schema", Map.of("type", "strin")));
        Answer badExample = API.admin(
                "POST",
                "/admin/event-types",
                Map.of("name", "order.bad", "schema", SHIPPED, "example", Map.of("orderId", "1")));
        Answer badRevision =
                API.admin("PUT", "/admin/event-types/order.shipped", Map.of("schema", Map.of("minimum", "x")));

        badSchema.assertError(422, "invalid_schema");
        assertThat(badSchema.text("reason")).contains("$.type");
        badExample.assertError(422, "invalid_example");
        assertThat(badExample.text("reason")).contains("required property 'carrier'");
        badRevision.assertError(422, "invalid_schema");
        API.admin("GET", "/admin/event-types/order.bad", null).assertError(404, "event_type_not_found");
        assertThat(API.adminGet("/admin/event-types/order.shipped")
                        .path("latestVersion")
                        .asInt())
                .isEqualTo(1);
        API.admin("POST", "/admin/event-types", Map.of("name", "order.shipped", "schema", SHIPPED))
                .assertError(409, "event_type_exists");
        API.admin("PUT", "/admin/event-types/order.none", Map.of("schema", SHIPPED))
                .assertError(404, "event_type_not_found");
    }

    @Test
    void aDeprecatedTypeStillPublishesAndTheAnswerSaysItIsDeprecated() {
        Map<String, Object> schema = Map.of("type", "object");
        API.admin("POST", "/admin/event-types", Map.of("name", "order.legacy", "schema", schema));
        JsonNode deprecated = API.admin("POST", "/admin/event-types/order.legacy/deprecate", Map.of())
                .body();
        assertThat(deprecated.path("deprecated").asBoolean()).isTrue();

        try (Response answer = API.request("/outbox", TestApp.PRODUCER_TOKEN)
                .post(Entity.json(event("order.legacy", Map.of("orderId", "9"))))) {
            assertThat(answer.getStatus()).isEqualTo(202);
            assertThat(answer.getHeaderString("Deprecation")).isEqualTo("true");
            awaitReceived(answer.readEntity(JsonNode.class).path("id").asText());
        }
        assertThat(API.admin("POST", "/admin/event-types/order.legacy/undeprecate", Map.of())
                        .body()
                        .path("deprecated")
                        .asBoolean())
                .isFalse();
    }

    static Answer publish(String eventType, Map<String, Object> payload) {
        return API.producer("POST", "/outbox", event(eventType, payload));
    }

    private static Map<String, Object> event(String eventType, Map<String, Object> payload) {
        return Map.of("eventType", eventType, "aggregateType", "order", "aggregateId", "A-1", "payload", payload);
    }

    /** As an application sharing the database does: the documented columns only. */
    private static UUID insertBySql(Jdbi jdbi, String eventType, String payload) {
        return jdbi.withHandle(h -> h.createQuery("""
                        INSERT INTO outbox_events (aggregate_type, aggregate_id, event_type, payload)
                        VALUES ('order', 'S-1', :type, CAST(:payload AS jsonb)) RETURNING id""")
                .bind("type", eventType)
                .bind("payload", payload)
                .mapTo(UUID.class)
                .one());
    }

    static TestReceiver.Received awaitReceived(String outboxId) {
        return await().atMost(Duration.ofSeconds(60))
                .until(
                        () -> RECEIVER.received("/hooks").stream()
                                .filter(r -> outboxId.equals(r.header("webhook-id")))
                                .findFirst()
                                .orElse(null),
                        Objects::nonNull);
    }

    private static JsonNode awaitDeadLetter(UUID outboxId) {
        return await().atMost(Duration.ofSeconds(60))
                .until(
                        () -> {
                            for (JsonNode item : API.adminGet("/admin/dead-letters?source=outbox&limit=500")
                                    .path("items")) {
                                if (item.path("reference").asText().equals(outboxId.toString())) {
                                    return item;
                                }
                            }
                            return null;
                        },
                        Objects::nonNull);
    }

    /** Quarantined when claimed, so no workflow ever ran for them: nothing can reach the receiver later. */
    private static void assertNeverSent(UUID... outboxIds) {
        for (UUID id : outboxIds) {
            assertThat(RECEIVER.received("/hooks")).noneMatch(r -> id.toString().equals(r.header("webhook-id")));
            String status = API.jdbi()
                    .withHandle(h -> h.createQuery("SELECT status FROM outbox_events WHERE id = :id")
                            .bind("id", id)
                            .mapTo(String.class)
                            .one());
            assertThat(status).isEqualTo("QUARANTINED");
        }
    }

    private static int rows() {
        return API.jdbi()
                .withHandle(h -> h.createQuery("SELECT count(*) FROM outbox_events")
                        .mapTo(int.class)
                        .one());
    }
}
