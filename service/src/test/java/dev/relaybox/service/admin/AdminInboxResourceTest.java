package dev.relaybox.service.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.service.api.JsonErrorMappers;
import dev.relaybox.service.inbound.EntitiesResource;
import dev.relaybox.store.InboxIntake;
import dev.relaybox.store.InboxIntake.ReceivedEvent;
import dev.relaybox.store.InboxQueries;
import dev.relaybox.store.InboxStore;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.AggregateKey;
import dev.relaybox.workflows.inbound.InboxOutcome.Outcome;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.dropwizard.testing.junit5.ResourceExtension;
import jakarta.ws.rs.client.WebTarget;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The admin inbox list and the entity read, alone in Jersey's in-memory container over a real PostgreSQL: filters,
 * keyset paging and the refusals of bad parameters.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class AdminInboxResourceTest {
    static final Jdbi JDBI = TestDatabase.fresh();
    static final InboxQueries INBOX = JDBI.onDemand(InboxQueries.class);
    static final ResourceExtension RESOURCE = ResourceExtension.builder()
            .setRegisterDefaultExceptionMappers(false)
            .addProvider((Feature) context -> {
                JsonErrorMappers.register(context);
                return true;
            })
            // No Temporal here: releasing a deferred event is covered end to end in InboundApiTest.
            .addResource(
                    new AdminInboxResource(INBOX, null, new TemporalLinks("http://localhost:8233", "default", true)))
            .addResource(new EntitiesResource(INBOX))
            .build();

    @Test
    void pagesThroughMoreRowsThanOnePageNewestFirstWhileRowsArrive() {
        List<String> stored = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            stored.add(0, receive("paging", "evt-page-" + i, "p-" + i));
        }

        JsonNode first = list("partner=paging&limit=3");
        // Rows arriving between pages are newer than the cursor: they neither repeat nor shift what follows.
        receive("paging", "evt-page-late-1", "late-1");
        JsonNode second =
                list("partner=paging&limit=3&cursor=" + first.path("nextCursor").asText());
        receive("paging", "evt-page-late-2", "late-2");
        JsonNode third = list(
                "partner=paging&limit=3&cursor=" + second.path("nextCursor").asText());

        List<String> seen = new ArrayList<>();
        for (JsonNode page : List.of(first, second, third)) {
            page.path("items").forEach(item -> seen.add(item.path("id").asText()));
        }
        assertThat(seen).containsExactlyElementsOf(stored);
        assertThat(first.path("items")).hasSize(3);
        assertThat(third.path("items")).hasSize(1);
        assertThat(third.hasNonNull("nextCursor")).isFalse();
        assertThat(list("partner=paging&limit=50").path("items")).hasSize(9);
    }

    @Test
    void filtersOnlyByWhatIsGiven() {
        receive("filter-a", "evt-f-1", "f-1");
        receive("filter-a", "evt-f-2", "f-2");
        receive("filter-b", "evt-f-3", "f-2");

        assertThat(ids(list("partner=filter-a"))).hasSize(2);
        assertThat(ids(list("aggregate=order:f-2"))).hasSize(2);
        assertThat(ids(list("partner=filter-a&aggregate=order:f-2"))).hasSize(1);
        assertThat(list("partner=filter-b&status=received")
                        .path("items")
                        .get(0)
                        .path("status")
                        .asText())
                .isEqualTo("RECEIVED");
        assertThat(ids(list("partner=filter-b&status=deferred"))).isEmpty();
    }

    @Test
    void refusesABadCursorStatusAggregateOrLimit() {
        assertError(get("/admin/inbox?cursor=not-a-cursor"), 400, "invalid_cursor");
        assertError(get("/admin/inbox?status=lost"), 400, "invalid_status");
        assertError(get("/admin/inbox?aggregate=no-colon"), 400, "invalid_aggregate");
        assertError(get("/admin/inbox?limit=501"), 400, "invalid_request");
        assertError(get("/admin/inbox?limit=0"), 400, "invalid_request");
    }

    @Test
    void oneEventComesWithItsPayloadAndAMissingOneIsNotFound() {
        String id = receive("detail", "evt-detail", "d-1");

        JsonNode detail = get("/admin/inbox/" + id).readEntity(JsonNode.class);

        assertThat(detail.path("event").path("aggregate").asText()).isEqualTo("order:d-1");
        assertThat(detail.path("payload").path("data").path("orderId").asText()).isEqualTo("d-1");
        assertError(get("/admin/inbox/" + UUID.randomUUID()), 404, "inbox_event_not_found");
    }

    @Test
    void entityShowsItsStateAndTheEventsProcessedOnItAndOneNoEventCreatedIsNotFound() {
        UUID paid = UUID.fromString(receive("entity", "evt-entity-paid", "e-1"));
        receive("entity", "evt-entity-pending", "e-1");
        JDBI.useTransaction(h -> {
            InboxStore store = h.attach(InboxStore.class);
            store.createEntity(new AggregateKey("order", "e-1"), "paid");
            store.markProcessed(paid, Outcome.APPLIED, null);
        });

        JsonNode entity = get("/entities/order/e-1").readEntity(JsonNode.class);

        assertThat(entity.path("state").asText()).isEqualTo("paid");
        assertThat(entity.path("version").asInt()).isEqualTo(1);
        assertThat(entity.path("events").findValuesAsText("partnerEventId")).containsExactly("evt-entity-paid");
        assertThat(entity.path("events").get(0).path("outcome").asText()).isEqualTo("APPLIED");
        assertError(get("/entities/order/never"), 404, "entity_not_found");
    }

    @Test
    void entityHistoryPagesItsEventsInTheOrderTheyFinished() {
        List<String> events = List.of("evt-paged-1", "evt-paged-2", "evt-paged-3");
        for (String event : events) {
            UUID id = UUID.fromString(receive("entity", event, "e-paged"));
            JDBI.useTransaction(h -> {
                InboxStore store = h.attach(InboxStore.class);
                if (event.endsWith("-1")) {
                    store.createEntity(new AggregateKey("order", "e-paged"), "created");
                }
                store.markProcessed(id, Outcome.APPLIED, null);
            });
        }

        JsonNode first = get("/entities/order/e-paged?limit=2").readEntity(JsonNode.class);
        JsonNode second = get("/entities/order/e-paged?limit=2&cursor="
                        + first.path("nextCursor").asText())
                .readEntity(JsonNode.class);

        assertThat(first.path("events").findValuesAsText("partnerEventId"))
                .containsExactly("evt-paged-1", "evt-paged-2");
        assertThat(second.path("events").findValuesAsText("partnerEventId")).containsExactly("evt-paged-3");
        assertThat(second.path("nextCursor").isNull()).isTrue();
        assertError(get("/entities/order/e-paged?cursor=not-ours"), 400, "invalid_cursor");
        assertError(get("/entities/order/e-paged?limit=501"), 400, "invalid_request");
    }

    private static String receive(String partner, String eventId, String orderId) {
        return JDBI.onDemand(InboxIntake.class)
                .receive(new ReceivedEvent(
                        partner,
                        eventId,
                        "order.created",
                        "order",
                        orderId,
                        "{\"type\": \"order.created\", \"data\": {\"orderId\": \"" + orderId + "\"}}"))
                .id()
                .toString();
    }

    private static JsonNode list(String query) {
        Response response = get("/admin/inbox?" + query);
        assertThat(response.getStatus()).isEqualTo(200);
        return response.readEntity(JsonNode.class);
    }

    private static List<String> ids(JsonNode page) {
        return page.path("items").findValuesAsText("id");
    }

    private static Response get(String pathAndQuery) {
        int question = pathAndQuery.indexOf('?');
        WebTarget target = RESOURCE.target(question < 0 ? pathAndQuery : pathAndQuery.substring(0, question));
        if (question >= 0) {
            for (String pair : pathAndQuery.substring(question + 1).split("&")) {
                int equals = pair.indexOf('=');
                target = target.queryParam(pair.substring(0, equals), pair.substring(equals + 1));
            }
        }
        return target.request().get();
    }

    private static void assertError(Response response, int status, String error) {
        assertThat(response.getStatus()).isEqualTo(status);
        JsonNode body = response.readEntity(JsonNode.class);
        assertThat(body.path("error").asText()).isEqualTo(error);
        assertThat(body.path("reason").asText()).isNotBlank();
    }
}
