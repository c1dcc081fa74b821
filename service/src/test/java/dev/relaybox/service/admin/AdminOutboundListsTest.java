package dev.relaybox.service.admin;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.outbound.DeliveryPlanner;
import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.service.api.JsonErrorMappers;
import dev.relaybox.store.DeliveryStore;
import dev.relaybox.store.TestDatabase;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.dropwizard.testing.junit5.ResourceExtension;
import jakarta.ws.rs.core.Response;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.UUID;
import java.util.function.UnaryOperator;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The admin outbox and deliveries lists on their own, against the real stores on an embedded PostgreSQL: newest
 * first, paged by cursor, filtered only by what is given.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class AdminOutboundListsTest {
    static final Jdbi JDBI = TestDatabase.fresh();
    static final ResourceExtension RESOURCES = resources();

    private static ResourceExtension resources() {
        ResourceExtension.Builder builder = ResourceExtension.builder().setRegisterDefaultExceptionMappers(false);
        JsonErrorMappers.providers().forEach(builder::addProvider);
        TemporalLinks links = new TemporalLinks("http://temporal.example", "default", false);
        return builder.addResource(new AdminOutboxResource(JDBI, links))
                .addResource(new AdminDeliveriesResource(JDBI, null, links))
                .build();
    }

    @BeforeAll
    static void endpoint() {
        JDBI.useHandle(h -> h.execute("INSERT INTO endpoints (name, url, secret, event_types) "
                + "VALUES ('shop', 'http://127.0.0.1/shop', 'whsec_eA==', '{order.*}')"));
    }

    @Test
    void outboxPagesPastOnePageWithoutRepeatsOrGapsWhileRowsArrive() {
        List<String> older = enqueue("paging", 5);

        JsonNode first = get("/admin/outbox", q -> q + "&aggregate=paging:1&limit=2");
        List<String> newer = enqueue("paging", 3);
        JsonNode second = get(
                "/admin/outbox",
                q -> q + "&aggregate=paging:1&limit=2&cursor="
                        + first.path("nextCursor").asText());
        JsonNode third = get(
                "/admin/outbox",
                q -> q + "&aggregate=paging:1&limit=2&cursor="
                        + second.path("nextCursor").asText());

        List<String> seen = new ArrayList<>();
        for (JsonNode page : List.of(first, second, third)) {
            page.path("items").forEach(item -> seen.add(item.path("id").asText()));
        }
        assertThat(seen).containsExactlyElementsOf(newestFirst(older));
        assertThat(seen).doesNotContainAnyElementsOf(newer);
        assertThat(third.path("nextCursor").isNull()).isTrue();
        assertThat(first.path("items").get(0).path("aggregate").asText()).isEqualTo("paging:1");
        assertThat(first.path("items").get(0).path("status").asText()).isEqualTo("PENDING");
    }

    @Test
    void deliveriesPagePastOnePageWithoutRepeatsOrGapsWhileRowsArrive() {
        List<String> older = deliveries(enqueue("delivering", 3));

        JsonNode first = get("/admin/deliveries", q -> q + "&aggregate=delivering:1&endpoint=shop&limit=2");
        List<String> newer = deliveries(enqueue("delivering", 2));
        JsonNode second = get(
                "/admin/deliveries",
                q -> q + "&aggregate=delivering:1&endpoint=shop&limit=2&cursor="
                        + first.path("nextCursor").asText());

        List<String> seen = new ArrayList<>();
        first.path("items").forEach(item -> seen.add(item.path("id").asText()));
        second.path("items").forEach(item -> seen.add(item.path("id").asText()));
        assertThat(seen).containsExactlyElementsOf(newestFirst(older));
        assertThat(seen).doesNotContainAnyElementsOf(newer);
        assertThat(second.path("nextCursor").isNull()).isTrue();
        assertThat(first.path("items").get(0).path("status").asText()).isEqualTo("PENDING");
    }

    @Test
    void filtersNarrowOnlyByWhatIsGiven() {
        List<String> ids = enqueue("filtered", 2);
        JDBI.useHandle(h -> h.createUpdate(
                        "UPDATE outbox_events SET status = 'PROCESSED', processed_at = now() WHERE id = CAST(:id AS uuid)")
                .bind("id", ids.get(0))
                .execute());

        JsonNode processed = get("/admin/outbox", q -> q + "&aggregate=filtered:1&status=processed");
        JsonNode all = get("/admin/outbox", q -> q + "&aggregate=filtered:1");
        JsonNode otherEventType = get("/admin/outbox", q -> q + "&aggregate=filtered:1&eventType=order.other");

        assertThat(processed.path("items").findValuesAsText("id")).containsExactly(ids.get(0));
        assertThat(all.path("items").findValuesAsText("id")).containsExactlyInAnyOrderElementsOf(ids);
        assertThat(otherEventType.path("items")).isEmpty();
    }

    @Test
    void badCursorStatusAggregateOrLimitIsRefusedWithTheErrorShape() {
        for (String list : List.of("/admin/outbox", "/admin/deliveries")) {
            assertRefused(list + "?cursor=not-a-cursor", "invalid_cursor");
            assertRefused(list + "?status=shipped", "invalid_status");
            assertRefused(list + "?aggregate=no-colon", "invalid_aggregate");
            assertRefused(list + "?limit=0", "invalid_request");
            assertRefused(list + "?limit=501", "invalid_request");
        }
    }

    private static void assertRefused(String pathAndQuery, String error) {
        int question = pathAndQuery.indexOf('?');
        var target = RESOURCES.target(pathAndQuery.substring(0, question));
        String[] param = pathAndQuery.substring(question + 1).split("=", 2);
        Response response = target.queryParam(param[0], param[1]).request().get();
        JsonNode body = response.readEntity(JsonNode.class);
        assertThat(response.getStatus()).as(pathAndQuery + " " + body).isEqualTo(400);
        assertThat(body.path("error").asText()).as(pathAndQuery).isEqualTo(error);
        assertThat(body.path("reason").asText()).isNotBlank();
    }

    /** Enqueues {@code count} events about {@code aggregateType:1}, each in its own transaction; oldest first. */
    private static List<String> enqueue(String aggregateType, int count) {
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            ids.add(JDBI.inTransaction(h -> Outbox.enqueue(h, new OutboxEvent("order.paid", aggregateType, "1", "{}")))
                    .toString());
        }
        return ids;
    }

    /** Subscribes each row, oldest first, in its own transaction; returns the deliveries in that order. */
    private static List<String> deliveries(List<String> outboxIds) {
        List<String> ids = new ArrayList<>();
        for (String outboxId : outboxIds) {
            ids.add(JDBI.inTransaction(h -> {
                DeliveryStore store = h.attach(DeliveryStore.class);
                DeliveryPlanner.subscribe(store, UUID.fromString(outboxId));
                return store.unfinished(UUID.fromString(outboxId))
                        .get(0)
                        .deliveryId()
                        .toString();
            }));
        }
        return ids;
    }

    private static List<String> newestFirst(List<String> oldestFirst) {
        List<String> reversed = new ArrayList<>(oldestFirst);
        Collections.reverse(reversed);
        return reversed;
    }

    private static JsonNode get(String path, UnaryOperator<String> query) {
        String[] params = query.apply("").substring(1).split("&");
        var target = RESOURCES.target(path);
        for (String param : params) {
            String[] pair = param.split("=", 2);
            target = target.queryParam(pair[0], pair[1]);
        }
        Response response = target.request().get();
        assertThat(response.getStatus()).isEqualTo(200);
        return response.readEntity(JsonNode.class);
    }
}
