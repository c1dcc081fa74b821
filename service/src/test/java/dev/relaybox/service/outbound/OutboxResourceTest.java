package dev.relaybox.service.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.catalog.EventSchemas;
import dev.relaybox.activities.catalog.PublishCheck;
import dev.relaybox.service.api.JsonBodyLimit;
import dev.relaybox.service.api.JsonErrorMappers;
import dev.relaybox.service.api.StrictTypes;
import dev.relaybox.store.OutboxStore;
import dev.relaybox.store.TenantStore;
import dev.relaybox.store.TestDatabase;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.dropwizard.testing.junit5.ResourceExtension;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.client.Invocation;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code POST /outbox} on its own, in Jersey's in-memory container, against the real store on an embedded
 * PostgreSQL: every refusal answers with the one JSON error shape and stores nothing.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class OutboxResourceTest {
    static final Jdbi JDBI = TestDatabase.fresh();
    static final ResourceExtension RESOURCE = resource();

    int rowsBefore;

    private static ResourceExtension resource() {
        ObjectMapper json = Jackson.newObjectMapper();
        StrictTypes.apply(json);
        ResourceExtension.Builder builder =
                ResourceExtension.builder().setMapper(json).setRegisterDefaultExceptionMappers(false);
        JsonErrorMappers.providers().forEach(builder::addProvider);
        return builder.addProvider(new JsonBodyLimit(json, 2048))
                .addResource(new OutboxResource(
                        JDBI.onDemand(OutboxStore.class),
                        List.of("order", "invoice"),
                        new PublishCheck(JDBI, new EventSchemas(), true, Clock.systemUTC()),
                        JDBI.onDemand(TenantStore.class)))
                .build();
    }

    @BeforeEach
    void countRows() {
        rowsBefore = rows();
    }

    @Test
    void validEventIsStoredAndAcceptedWithItsId() {
        Response response = post(Entity.json(event("order.shipped", "order", "A-1", Map.of("carrier", "DHL"))));

        assertThat(response.getStatus()).isEqualTo(202);
        JsonNode body = response.readEntity(JsonNode.class);
        assertThat(body.path("status").asText()).isEqualTo("accepted");
        String stored = JDBI.withHandle(h -> h.createQuery("""
                        SELECT event_type || ' ' || aggregate_type || ':' || aggregate_id || ' ' || payload::text
                          FROM outbox_events WHERE id = CAST(:id AS uuid)""")
                .bind("id", body.path("id").asText())
                .mapTo(String.class)
                .one());
        assertThat(stored).isEqualTo("order.shipped order:A-1 {\"carrier\": \"DHL\"}");
    }

    @Test
    void integerAggregateIdIsStoredAsText() {
        Response response = post(Entity.json(Map.of(
                "eventType", "order.paid", "aggregateType", "order", "aggregateId", 77, "payload", List.of(1, 2))));

        assertThat(response.getStatus()).isEqualTo(202);
        String id = response.readEntity(JsonNode.class).path("id").asText();
        String aggregateId = JDBI.withHandle(
                h -> h.createQuery("SELECT aggregate_id FROM outbox_events WHERE id = CAST(:id AS uuid)")
                        .bind("id", id)
                        .mapTo(String.class)
                        .one());
        assertThat(aggregateId).isEqualTo("77");
    }

    @Test
    void malformedJsonIsRefused() {
        assertRefused(post(Entity.json("{\"eventType\": ")), 400, "invalid_json");
        assertRefused(post(Entity.json("")), 400, "invalid_json");
    }

    @Test
    void aBodyOfTheWrongShapeIsRefusedSayingWhatWasExpectedWithoutNamingJavaClasses() {
        JsonNode array = assertRefused(post(Entity.json("[]")), 400, "invalid_json");
        assertThat(array.path("reason").asText())
                .isEqualTo("the body is not of the expected type: a JSON object")
                .doesNotContain("dev.relaybox");
        JsonNode payload = assertRefused(
                post(Entity.json(
                        "{\"eventType\": \"order.paid\", \"aggregateType\": \"order\", \"aggregateId\": \"1\", "
                                + "\"payload\": {}, \"tenant\": [\"acme\"]}")),
                400,
                "invalid_json");
        assertThat(payload.path("reason").asText()).isEqualTo("\"tenant\" is not of the expected type: a string");
    }

    @Test
    void aNumberWhereANameIsExpectedIsRefusedNotTurnedIntoText() {
        for (String field : List.of("eventType", "aggregateType")) {
            Map<String, Object> event = new HashMap<>(event("order.paid", "order", "1", Map.of()));
            event.put(field, 123);

            JsonNode refused = assertRefused(post(Entity.json(event)), 400, "invalid_json");

            assertThat(refused.path("reason").asText())
                    .isEqualTo("\"" + field + "\" is not of the expected type: a string");
        }
    }

    @Test
    void jsonPostgresCannotStoreIsRefused() {
        assertRefused(post(Entity.json("""
                {"eventType": "order.paid", "aggregateType": "order", "aggregateId": "1", "payload": {"n": "a\\u0000b"}}""")), 400, "invalid_json");
        assertRefused(post(Entity.json("""
                {"eventType": "order.paid", "aggregateType": "order", "aggregateId": "1", "payload": {}} {"more": 1}""")), 400, "invalid_json");
    }

    @Test
    void missingFieldsAreRefusedNamingThem() {
        JsonNode error = assertRefused(
                post(Entity.json(Map.of("aggregateType", "order", "payload", Map.of()))), 400, "invalid_request");

        assertThat(error.path("reason").asText()).contains("eventType").contains("aggregateId");
    }

    @Test
    void unknownFieldIsRefused() {
        assertRefused(
                post(Entity.json(Map.of(
                        "eventType",
                        "order.paid",
                        "aggregateType",
                        "order",
                        "aggregateId",
                        "1",
                        "payload",
                        Map.of(),
                        "extra",
                        1))),
                400,
                "unknown_field");
    }

    @Test
    void malformedFieldsAreRefused() {
        assertRefused(post(Entity.json(event("order paid!", "order", "1", Map.of()))), 400, "invalid_request");
        assertRefused(post(Entity.json(event("order.paid", "order", " ", Map.of()))), 400, "invalid_request");
        assertRefused(
                post(Entity.json(event("order.paid", "order", "x".repeat(201), Map.of()))), 400, "invalid_request");
        assertRefused(
                post(Entity.json(Map.of(
                        "eventType", "order.paid", "aggregateType", "order", "aggregateId", "1", "payload", "text"))),
                400,
                "invalid_request");
    }

    @Test
    void relayboxEventTypesAreReserved() {
        assertRefused(
                post(Entity.json(event("relaybox.dead_letter.created", "order", "1", Map.of()))),
                422,
                "reserved_event_type");
        assertRefused(
                withKey("forged", Entity.json(event("Relaybox.anything", "order", "1", Map.of()))),
                422,
                "reserved_event_type");
    }

    @Test
    void aggregateTypeOutsideTheConfiguredOnesIsRefused() {
        assertRefused(post(Entity.json(event("order.paid", "ship", "1", Map.of()))), 422, "unknown_aggregate_type");
    }

    @Test
    void bodyOverTheLimitIsRefused() {
        assertRefused(
                post(Entity.json(event("order.paid", "order", "1", Map.of("blob", "x".repeat(4000))))),
                413,
                "payload_too_large");
    }

    @Test
    void otherContentTypesAreRefused() {
        assertRefused(
                post(Entity.entity("eventType=x", MediaType.APPLICATION_FORM_URLENCODED)),
                415,
                "unsupported_media_type");
    }

    @Test
    void sameIdempotencyKeyAndBodyReturnsTheFirstRowWhileAnotherBodyConflicts() {
        Map<String, Object> body = event("order.paid", "order", "77", Map.of("amount", 10));
        Response first = withKey("pay-77", Entity.json(body));
        Response again = withKey("pay-77", Entity.json(body));

        assertThat(first.getStatus()).isEqualTo(202);
        assertThat(again.getStatus()).isEqualTo(200);
        JsonNode duplicate = again.readEntity(JsonNode.class);
        assertThat(duplicate.path("id").asText())
                .isEqualTo(first.readEntity(JsonNode.class).path("id").asText());
        assertThat(duplicate.path("status").asText()).isEqualTo("duplicate");
        rowsBefore = rows();
        assertRefused(
                withKey("pay-77", Entity.json(event("order.paid", "order", "77", Map.of("amount", 11)))),
                409,
                "idempotency_key_reused");
    }

    @Test
    void blankOrOverlongIdempotencyKeyIsRefused() {
        assertRefused(
                withKey(" ", Entity.json(event("order.paid", "order", "1", Map.of()))), 400, "invalid_idempotency_key");
        assertRefused(
                withKey("k".repeat(201), Entity.json(event("order.paid", "order", "1", Map.of()))),
                400,
                "invalid_idempotency_key");
    }

    private static Map<String, Object> event(
            String eventType, String aggregateType, String aggregateId, Object payload) {
        return Map.of(
                "eventType", eventType, "aggregateType", aggregateType, "aggregateId", aggregateId, "payload", payload);
    }

    private static Response post(Entity<?> body) {
        return request().post(body);
    }

    private static Response withKey(String idempotencyKey, Entity<?> body) {
        return request().header("Idempotency-Key", idempotencyKey).post(body);
    }

    private static Invocation.Builder request() {
        return RESOURCE.target("/outbox").request(MediaType.APPLICATION_JSON);
    }

    /** The answer is the JSON error shape with this status and code, and nothing was stored. */
    private JsonNode assertRefused(Response response, int status, String error) {
        assertThat(response.getStatus()).isEqualTo(status);
        assertThat(response.getMediaType().toString()).startsWith(MediaType.APPLICATION_JSON);
        JsonNode body = response.readEntity(JsonNode.class);
        assertThat(body.path("error").asText()).as(body.toString()).isEqualTo(error);
        assertThat(body.path("reason").asText()).isNotBlank();
        assertThat(rows()).isEqualTo(rowsBefore);
        return body;
    }

    private static int rows() {
        return JDBI.withHandle(h -> h.createQuery("SELECT count(*) FROM outbox_events")
                .mapTo(int.class)
                .one());
    }
}
