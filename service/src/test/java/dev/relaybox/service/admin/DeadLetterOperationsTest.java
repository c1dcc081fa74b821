package dev.relaybox.service.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** An operator's way back from a dead letter, through the running application and a real receiver. */
@ExtendWith(DropwizardExtensionsSupport.class)
class DeadLetterOperationsTest {
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ConfigOverride.config("delivery.retryDelays", "1s"),
            ConfigOverride.config("delivery.jitter", "0"),
            ConfigOverride.config("alerts.endpointUrl", RECEIVER.url("/alerts")),
            ConfigOverride.config(
                    "alerts.endpointSecret",
                    "whsec_" + Base64.getEncoder().encodeToString("alert-secret-alert-secret-alert".getBytes())));
    static final Api API = new Api(APP);

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void replayAfterTheReceiverRecoversDeliversOnceAndResolvesTheDeadLetter() {
        endpoint("replay-once", "/replay-once", "billing.*");
        RECEIVER.script("/replay-once", TestReceiver.Reply.of(503));
        String outboxId = post("billing.failed", "b-1");
        JsonNode deadLetter = awaitOpenDeadLetter("replay-once");
        assertThat(deadLetter.path("reason").asText()).contains("gave up after 2 attempts");
        assertThat(deadLetter.path("temporalUrl").asText()).endsWith("outbox-" + outboxId);
        // Every dead letter raised an alert event through the outbox, delivered to the alert endpoint.
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/alerts").stream()
                        .anyMatch(r -> new String(r.body())
                                .contains(deadLetter.path("id").asText())));

        RECEIVER.script("/replay-once", TestReceiver.Reply.of(200));
        Answer replayed = API.admin(
                "POST", "/admin/dead-letters/" + deadLetter.path("id").asText() + "/replay", Map.of("by", "alice"));
        Answer again =
                API.admin("POST", "/admin/dead-letters/" + deadLetter.path("id").asText() + "/replay", Map.of());

        assertThat(replayed.status()).isEqualTo(200);
        assertThat(again.status()).isEqualTo(409);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> deliveryStatus("replay-once").equals("DELIVERED"));
        assertThat(RECEIVER.received("/replay-once").stream().filter(r -> outboxId.equals(r.header("webhook-id"))))
                .hasSize(3);
        JsonNode resolved =
                API.adminGet("/admin/dead-letters/" + deadLetter.path("id").asText());
        assertThat(resolved.path("resolution").asText()).isEqualTo("REPLAYED");
        assertThat(resolved.path("resolvedBy").asText()).startsWith("alice");
    }

    @Test
    void bulkReplayByEndpointReplaysExactlyTheMatchingDeadLetters() {
        endpoint("bulk-a", "/bulk-a", "stock.*");
        endpoint("bulk-b", "/bulk-b", "stock.*");
        RECEIVER.script("/bulk-a", TestReceiver.Reply.of(500));
        RECEIVER.script("/bulk-b", TestReceiver.Reply.of(500));
        post("stock.low", "s-1");
        post("stock.out", "s-2");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> openDeadLetters("bulk-a").size() == 2
                        && openDeadLetters("bulk-b").size() == 2);
        RECEIVER.script("/bulk-a", TestReceiver.Reply.of(200));

        Answer answer = API.admin(
                "POST", "/admin/dead-letters/replay", Map.of("filter", Map.of("peer", "bulk-a"), "by", "bob"));

        assertThat(answer.status()).isEqualTo(200);
        assertThat(answer.body().path("replayed").asInt()).isEqualTo(2);
        assertThat(openDeadLetters("bulk-a")).isEmpty();
        assertThat(openDeadLetters("bulk-b")).hasSize(2);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> API.adminGet("/admin/deliveries?endpoint=bulk-a&status=delivered")
                                .path("items")
                                .size()
                        == 2);
    }

    @Test
    void discardResolvesWithTheReasonAndLeavesTheDeliveryDeadLettered() {
        endpoint("discard", "/discard", "audit.*");
        RECEIVER.script("/discard", TestReceiver.Reply.of(400));
        post("audit.logged", "a-1");
        JsonNode deadLetter = awaitOpenDeadLetter("discard");

        Answer missingReason =
                API.admin("POST", "/admin/dead-letters/" + deadLetter.path("id").asText() + "/discard", Map.of());
        Answer discarded = API.admin(
                "POST",
                "/admin/dead-letters/" + deadLetter.path("id").asText() + "/discard",
                Map.of("reason", "receiver retired the audit feed"));

        missingReason.assertError(400, "invalid_request");
        assertThat(discarded.status()).isEqualTo(200);
        assertThat(discarded.body().path("resolution").asText())
                .isEqualTo("DISCARDED: receiver retired the audit feed");
        assertThat(openDeadLetters("discard")).isEmpty();
        assertThat(deliveryStatus("discard")).isEqualTo("DEAD_LETTERED");
    }

    @Test
    void adminOperationsRefuseRequestsWithoutAValidToken() {
        for (String path : List.of("/admin/dead-letters", "/admin/inbox", "/admin/deliveries", "/admin/endpoints")) {
            Answer.of(API.request(path, "wrong").get()).assertError(401, "unauthorized");
            API.anonymous("GET", path, null).assertError(401, "unauthorized");
        }
        API.producer("POST", "/admin/dead-letters/replay", Map.of()).assertError(403, "forbidden");
    }

    private static void endpoint(String name, String path, String eventTypes) {
        API.endpoint(name, RECEIVER.url(path), eventTypes);
    }

    private static String post(String eventType, String aggregateId) {
        Answer answer = API.enqueue(eventType, "order", aggregateId, Map.of("id", aggregateId));
        assertThat(answer.status()).isEqualTo(202);
        return answer.body().path("id").asText();
    }

    private static JsonNode awaitOpenDeadLetter(String endpointName) {
        return await().atMost(Duration.ofSeconds(30))
                .until(() -> openDeadLetters(endpointName), l -> l.size() == 1)
                .get(0);
    }

    private static List<JsonNode> openDeadLetters(String endpointName) {
        JsonNode items = API.adminGet("/admin/dead-letters?source=outbox&peer=" + endpointName)
                .path("items");
        return StreamSupport.stream(items.spliterator(), false).toList();
    }

    private static String deliveryStatus(String endpointName) {
        return API.adminGet("/admin/deliveries?endpoint=" + endpointName)
                .path("items")
                .get(0)
                .path("status")
                .asText();
    }
}
