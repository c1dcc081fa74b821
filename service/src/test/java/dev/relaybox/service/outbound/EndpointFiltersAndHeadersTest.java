package dev.relaybox.service.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.activities.outbound.TestReceiver.Received;
import dev.relaybox.service.Api;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** An endpoint's payload filter decides which events it gets; its static headers arrive with each of them. */
@ExtendWith(DropwizardExtensionsSupport.class)
class EndpointFiltersAndHeadersTest {
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension();
    static final Api API = new Api(APP);
    static final Map<String, Object> BIG_EUR_ORDERS = Map.of(
            "all",
            List.of(Map.of("path", "/amount", "gte", 100), Map.of("path", "/currency", "in", List.of("EUR", "CHF"))));

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void anEventTheFilterDoesNotMatchGetsNoDeliveryForThatEndpoint() {
        Answer filtered = create(Map.of(
                "name",
                "big-orders",
                "url",
                RECEIVER.url("/big"),
                "eventTypes",
                List.of("invoice.*"),
                "filter",
                BIG_EUR_ORDERS));
        assertThat(filtered.status()).isEqualTo(201);
        assertThat(filtered.body().path("filter").path("all").size()).isEqualTo(2);
        create(Map.of("name", "every-invoice", "url", RECEIVER.url("/every"), "eventTypes", List.of("invoice.*")));

        String small = enqueue("I-1", Map.of("amount", 20, "currency", "EUR"));
        String big = enqueue("I-2", Map.of("amount", 250.5, "currency", "EUR"));
        String usd = enqueue("I-3", Map.of("amount", 900, "currency", "USD"));

        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(webhookIds("/every")).containsExactlyInAnyOrder(small, big, usd));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() ->
                        assertThat(deliveries("every-invoice", "delivered")).hasSize(3));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () -> assertThat(deliveries("big-orders", "delivered")).containsExactly(big));
        assertThat(webhookIds("/big")).containsExactly(big);
        assertThat(API.adminGet("/admin/deliveries?endpoint=big-orders").path("items"))
                .as("no delivery at all, not a skipped one")
                .hasSize(1);

        String id = filtered.text("id");
        assertThat(API.admin("PATCH", "/admin/endpoints/" + id, Map.of("filter", Map.of()))
                        .body()
                        .path("filter")
                        .isNull())
                .isTrue();
        String afterRemoval = enqueue("I-4", Map.of("amount", 1, "currency", "JPY"));
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(webhookIds("/big")).containsExactlyInAnyOrder(big, afterRemoval));
    }

    @Test
    void staticHeadersArriveWithEveryRequestAndTheirValuesAreShownOnlyWhenSet() {
        Answer created = create(Map.of(
                "name", "gateway",
                "url", RECEIVER.url("/gateway"),
                "eventTypes", List.of("parcel.*"),
                "headers", Map.of("X-Api-Key", "k-123 secret", "X-Tenant", "acme")));
        assertThat(created.status()).isEqualTo(201);
        assertThat(created.body().path("headers").path("X-Api-Key").asText()).isEqualTo("k-123 secret");
        String id = created.text("id");
        JsonNode shown = API.adminGet("/admin/endpoints/" + id).path("headers");
        assertThat(shown.path("X-Api-Key").asText()).isEqualTo("••••");
        assertThat(shown.path("X-Tenant").asText()).isEqualTo("••••");
        String atRest = API.jdbi()
                .withHandle(h -> h.createQuery("SELECT headers FROM endpoints WHERE name = 'gateway'")
                        .mapTo(String.class)
                        .one());
        assertThat(atRest).as("sealed at rest").doesNotContain("k-123").doesNotContain("acme");

        String outboxId =
                API.enqueue("parcel.sent", "parcel", "P-1", Map.of("id", "P-1")).text("id");
        Received request = await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/gateway"), r -> !r.isEmpty())
                .get(0);
        assertThat(request.header("X-Api-Key")).isEqualTo("k-123 secret");
        assertThat(request.header("X-Tenant")).isEqualTo("acme");
        assertThat(request.header("webhook-id")).isEqualTo(outboxId);
        assertThat(request.header("webhook-signature")).startsWith("v1,");
        assertThat(request.header("content-type")).startsWith("application/json");

        Answer changed = API.admin("PATCH", "/admin/endpoints/" + id, Map.of("headers", Map.of("X-Api-Key", "k-456")));
        assertThat(changed.body().path("headers").path("X-Api-Key").asText()).isEqualTo("k-456");
        assertThat(changed.body().path("headers").has("X-Tenant")).isFalse();
        assertThat(API.adminGet("/admin/endpoints/" + id)
                        .path("headers")
                        .path("X-Api-Key")
                        .asText())
                .isEqualTo("••••");
    }

    private static Answer create(Map<String, Object> endpoint) {
        Map<String, Object> request = new HashMap<>(endpoint);
        request.putIfAbsent("url", RECEIVER.url("/" + endpoint.get("name")));
        return API.admin("POST", "/admin/endpoints", request);
    }

    private static String enqueue(String invoice, Map<String, Object> payload) {
        Answer answer = API.enqueue("invoice.issued", "invoice", invoice, payload);
        assertThat(answer.status()).isEqualTo(202);
        return answer.text("id");
    }

    private static List<String> webhookIds(String path) {
        return RECEIVER.received(path).stream().map(r -> r.header("webhook-id")).toList();
    }

    private static List<String> deliveries(String endpoint, String status) {
        List<String> outboxIds = new ArrayList<>();
        API.adminGet("/admin/deliveries?status=" + status + "&endpoint=" + endpoint)
                .path("items")
                .forEach(d -> outboxIds.add(d.path("outboxId").asText()));
        return outboxIds;
    }
}
