package dev.relaybox.service.production;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.TestApp;
import dev.relaybox.service.config.AuthFactory;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Relaybox started the way production starts it: from the built jar, as its own process, with only the
 * environment docker-compose.yml gives it, against a separate PostgreSQL and a separate Temporal process.
 */
class ProductionModeIT {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static Production production;
    private static TestReceiver receiver;
    private static String api;

    @BeforeAll
    static void startProduction() throws Exception {
        production = Production.start("production-mode");
        receiver = new TestReceiver();
        int port = TestApp.freePort();
        int adminPort = TestApp.freePort();
        JavaProcess relaybox = production.startRelaybox(
                "relaybox", production.relayboxEnvironment(Production.operatorVariables(), port, adminPort));
        production.awaitHealthy(relaybox, adminPort);
        api = "http://127.0.0.1:" + port;
    }

    @AfterAll
    static void stopProduction() throws Exception {
        if (receiver != null) {
            receiver.close();
        }
        if (production != null) {
            production.close();
        }
    }

    @Test
    void startsHealthyAgainstExternalPostgresAndTemporal() throws Exception {
        HttpResponse<String> overview = production.get(api + "/admin/overview", Production.ADMIN_TOKEN);

        assertThat(overview.statusCode()).as(overview.body()).isEqualTo(200);
        assertThat(production
                        .get(api + "/admin/overview", AuthFactory.DEV_ADMIN_TOKEN)
                        .statusCode())
                .as("the development admin token in production")
                .isEqualTo(401);
    }

    @Test
    void refusesToStartWithTheDevelopmentTokens() throws Exception {
        Map<String, String> variables = Production.operatorVariables();
        variables.put("RELAYBOX_ADMIN_TOKENS", AuthFactory.DEV_ADMIN_TOKEN);

        JavaProcess refused = production.startRelaybox(
                "relaybox-dev-tokens",
                production.relayboxEnvironment(variables, TestApp.freePort(), TestApp.freePort()));

        assertThat(refused.awaitExit(180)).as(refused.output()).isNotZero();
        assertThat(refused.output()).contains("refusing to start").contains("RELAYBOX_ADMIN_TOKENS");
    }

    @Test
    void refusesToStartWithTheExamplePartnersDevelopmentSecret() throws Exception {
        Map<String, String> variables = Production.operatorVariables();
        variables.put("SHOP_WEBHOOK_SECRET", AuthFactory.DEV_PARTNER_SECRET);

        JavaProcess refused = production.startRelaybox(
                "relaybox-dev-secret",
                production.relayboxEnvironment(variables, TestApp.freePort(), TestApp.freePort()));

        assertThat(refused.awaitExit(180)).as(refused.output()).isNotZero();
        assertThat(refused.output())
                .contains("partner 'shop' uses the development secret")
                .contains("SHOP_WEBHOOK_SECRET");
    }

    @Test
    void deliversAnOutboxEventSignedToAReceiver() throws Exception {
        HttpResponse<String> endpoint = production.post(
                api + "/admin/endpoints",
                Production.ADMIN_TOKEN,
                Map.of(),
                JSON.writeValueAsString(Map.of(
                        "name", "it-receiver", "url", receiver.url("/hooks"), "eventTypes", List.of("invoice.*"))));
        assertThat(endpoint.statusCode()).as(endpoint.body()).isEqualTo(201);
        String secret = JSON.readTree(endpoint.body()).path("secret").asText();

        String payload = "{\"invoiceId\":\"inv-7\",\"amount\":4200}";
        HttpResponse<String> accepted = production.post(
                api + "/outbox",
                Production.PRODUCER_TOKEN,
                Map.of(),
                "{\"eventType\":\"invoice.paid\",\"aggregateType\":\"invoice\",\"aggregateId\":\"inv-7\","
                        + "\"payload\":" + payload + "}");
        assertThat(accepted.statusCode()).as(accepted.body()).isEqualTo(202);
        String outboxId = JSON.readTree(accepted.body()).path("id").asText();

        await("delivery of " + outboxId)
                .atMost(Duration.ofMinutes(2))
                .until(() -> receiver.received().stream().anyMatch(d -> outboxId.equals(d.header("webhook-id"))));
        TestReceiver.Received delivery = receiver.received().stream()
                .filter(d -> outboxId.equals(d.header("webhook-id")))
                .findFirst()
                .orElseThrow();
        String expected =
                Signatures.standardWebhooks(secret, outboxId, delivery.header("webhook-timestamp"), delivery.text());
        assertThat(Arrays.asList(delivery.header("webhook-signature").split(" ")))
                .contains(expected);
        assertThat(JSON.readTree(delivery.text()).toString()).contains("inv-7");
    }

    @Test
    void appliesASignedInboundEvent() throws Exception {
        String orderId = "it-" + UUID.randomUUID();
        String eventId = "evt-" + UUID.randomUUID();
        HttpResponse<String> receipt =
                production.postShopWebhook(api, Production.SHOP_SECRET, eventId, "order.created", orderId);
        HttpResponse<String> forged = production.postShopWebhook(
                api, AuthFactory.DEV_PARTNER_SECRET, eventId + "-forged", "order.created", orderId);

        assertThat(receipt.statusCode()).as(receipt.body()).isEqualTo(200);
        assertThat(JSON.readTree(receipt.body()).path("status").asText()).isEqualTo("accepted");
        assertThat(forged.statusCode()).as("signed with the development secret").isEqualTo(401);
        String entityUrl = api + "/entities/order/" + orderId;
        await("order " + orderId + " created")
                .atMost(Duration.ofMinutes(2))
                .until(() ->
                        production.get(entityUrl, Production.PRODUCER_TOKEN).statusCode() == 200);
        JsonNode entity = JSON.readTree(
                production.get(entityUrl, Production.PRODUCER_TOKEN).body());
        assertThat(entity.path("state").asText()).isEqualTo("created");
        assertThat(entity.path("version").asInt()).isEqualTo(1);
        assertThat(entity.path("events").get(0).path("partnerEventId").asText()).isEqualTo(eventId);
    }
}
