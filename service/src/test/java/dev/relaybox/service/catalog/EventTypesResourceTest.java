package dev.relaybox.service.catalog;

import static dev.relaybox.service.api.ResourceTests.ADMIN_TOKEN;
import static dev.relaybox.service.api.ResourceTests.PRODUCER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.catalog.EventCatalog;
import dev.relaybox.activities.catalog.EventSchemas;
import dev.relaybox.service.api.ResourceTests;
import dev.relaybox.service.api.ResourceTests.Answer;
import dev.relaybox.store.EventTypeStore;
import dev.relaybox.store.TestDatabase;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.dropwizard.testing.junit5.ResourceExtension;
import java.util.Map;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every refusal of {@code /admin/event-types}, in the one error shape, against the real store: nothing is written. */
@ExtendWith(DropwizardExtensionsSupport.class)
class EventTypesResourceTest {
    static final Jdbi JDBI = TestDatabase.fresh();
    static final ResourceExtension RESOURCES = ResourceTests.extension(
            new EventTypesResource(new EventTypes(JDBI, new EventCatalog(JDBI, new EventSchemas()))));
    static final Map<String, Object> OBJECT = Map.of("type", "object");

    @Test
    void badRequestsAreRefusedAndWriteNothing() {
        assertError(post(Map.of("name", "order.x")), 400, "invalid_request");
        assertError(post(Map.of("name", "order x", "schema", OBJECT)), 400, "invalid_request");
        assertError(post(Map.of("name", false, "schema", OBJECT)), 400, "invalid_json");
        assertError(post("{\"name\": "), 400, "invalid_json");
        assertError(post(Map.of("name", "relaybox.own", "schema", OBJECT)), 422, "invalid_event_type");
        assertError(post(Map.of("name", "order.x", "schema", Map.of("type", 5))), 422, "invalid_schema");
        assertError(
                post(Map.of("name", "order.x", "schema", Map.of("type", "string"), "example", 5)),
                422,
                "invalid_example");
        assertError(
                ResourceTests.call(
                        RESOURCES, "PUT", "/admin/event-types/order.none", ADMIN_TOKEN, Map.of("schema", OBJECT)),
                404,
                "event_type_not_found");
        assertError(get("/admin/event-types/order.none"), 404, "event_type_not_found");
        assertError(
                ResourceTests.call(RESOURCES, "POST", "/admin/event-types/order.none/deprecate", ADMIN_TOKEN, Map.of()),
                404,
                "event_type_not_found");

        assertThat(JDBI.withExtension(EventTypeStore.class, EventTypeStore::list))
                .isEmpty();
    }

    @Test
    void onlyAdminsReadOrChangeTheCatalog() {
        assertError(ResourceTests.call(RESOURCES, "GET", "/admin/event-types", null, null), 401, "unauthorized");
        assertError(
                ResourceTests.call(
                        RESOURCES,
                        "POST",
                        "/admin/event-types",
                        PRODUCER_TOKEN,
                        Map.of("name", "order.x", "schema", OBJECT)),
                403,
                "forbidden");
    }

    private static Answer post(Object body) {
        return ResourceTests.call(RESOURCES, "POST", "/admin/event-types", ADMIN_TOKEN, body);
    }

    private static Answer get(String path) {
        return ResourceTests.call(RESOURCES, "GET", path, ADMIN_TOKEN, null);
    }

    private static void assertError(Answer answer, int status, String error) {
        assertThat(answer.status()).as(answer.body().toString()).isEqualTo(status);
        assertThat(answer.error()).isEqualTo(error);
        assertThat(answer.body().path("reason").asText()).isNotBlank();
    }
}
