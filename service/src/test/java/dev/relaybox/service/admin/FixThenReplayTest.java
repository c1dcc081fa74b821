package dev.relaybox.service.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.CommandLine;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import dev.relaybox.service.auth.Caller;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import jakarta.ws.rs.client.Entity;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Fix, then replay, through the running application: a dead letter replayed with a corrected payload goes the
 * normal path with the new payload (outbound to a real receiver, inbound through the state machine), the original
 * stays readable, and the story shows who changed what and why.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class FixThenReplayTest {
    static final ObjectMapper JSON = new ObjectMapper();
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ConfigOverride.config("delivery.retryDelays", "1s"), ConfigOverride.config("delivery.jitter", "0"));
    static final Api API = new Api(APP);
    static final String ACTOR = "admin token " + Caller.fingerprint(TestApp.ADMIN_TOKEN);

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void aCorrectedOutboundEventReachesTheReceiverOnceWithTheNewPayloadAndTheOriginalIsKept() {
        RECEIVER.script("/fix-out", TestReceiver.Reply.of(400));
        assertThat(API.admin(
                                "POST",
                                "/admin/endpoints",
                                Map.of(
                                        "name",
                                        "fix-out",
                                        "url",
                                        RECEIVER.url("/fix-out"),
                                        "eventTypes",
                                        List.of("invoice.*")))
                        .status())
                .isEqualTo(201);
        Answer enqueued =
                API.enqueue("invoice.sent", "invoice", "inv-1", Map.of("invoiceId", "inv-1", "amount", "12,50"));
        String outboxId = enqueued.text("id");
        JsonNode deadLetter = await().atMost(Duration.ofSeconds(30))
                .until(() -> openDeadLetters("source=outbox&peer=fix-out"), found -> found.size() == 1)
                .get(0);
        RECEIVER.script("/fix-out", TestReceiver.Reply.of(200));

        Answer replayed = API.admin(
                "POST",
                "/admin/dead-letters/" + deadLetter.path("id").asText() + "/replay",
                Map.of(
                        "payload",
                        Map.of("invoiceId", "inv-1", "amount", 12.5),
                        "reason",
                        "the receiver wants the amount as a number",
                        "by",
                        "alice"));

        assertThat(replayed.status()).as(replayed.body().toString()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/fix-out").size() == 2);
        List<TestReceiver.Received> received = RECEIVER.received("/fix-out");
        assertThat(received).allSatisfy(r -> assertThat(r.header("webhook-id")).isEqualTo(outboxId));
        assertThat(data(received.get(0))).isEqualTo(tree("{\"invoiceId\": \"inv-1\", \"amount\": \"12,50\"}"));
        assertThat(data(received.get(1))).isEqualTo(tree("{\"invoiceId\": \"inv-1\", \"amount\": 12.5}"));
        assertThat(received.get(1).status()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> API.adminGet("/admin/deliveries?endpoint=fix-out")
                        .path("items")
                        .get(0)
                        .path("status")
                        .asText()
                        .equals("DELIVERED"));
        assertThat(RECEIVER.received("/fix-out"))
                .as("delivered once, not again")
                .hasSize(2);

        JsonNode edits = story(deadLetter.path("id").asText()).path("payloadEdits");
        assertThat(edits).hasSize(1);
        JsonNode edit = edits.get(0);
        assertThat(edit.path("deadLetterId").asText())
                .isEqualTo(deadLetter.path("id").asText());
        assertThat(edit.path("source").asText()).isEqualTo("OUTBOX");
        assertThat(edit.path("rowId").asText()).isEqualTo(outboxId);
        assertThat(edit.path("actor").asText()).isEqualTo(ACTOR);
        assertThat(edit.path("by").asText()).isEqualTo("alice");
        assertThat(edit.path("reason").asText()).isEqualTo("the receiver wants the amount as a number");
        assertThat(edit.path("editedAt").isTextual()).isTrue();
        assertThat(edit.path("changes"))
                .isEqualTo(tree("[{\"path\": \"/amount\", \"from\": \"12,50\", \"to\": 12.5}]"));
        assertThat(edit.path("signature").isNull()).isTrue();
        assertThat(edit.path("previousPayload")).isEqualTo(tree("{\"invoiceId\": \"inv-1\", \"amount\": \"12,50\"}"));
        assertThat(edit.path("payload")).isEqualTo(tree("{\"invoiceId\": \"inv-1\", \"amount\": 12.5}"));
        assertThat(API.adminGet("/admin/dead-letters/" + deadLetter.path("id").asText())
                        .path("resolvedBy")
                        .asText())
                .isEqualTo("alice (" + ACTOR + ")");
    }

    @Test
    void aCorrectedInboundEventIsAppliedWithoutItsSignatureCheckedAgain() {
        String order = "F-" + UUID.randomUUID();
        String eventId = "evt-fix-" + order;
        // The partner put the order id under the wrong key: no aggregate id, so the event is rejected as poison.
        String original = "{\"type\": \"order.created\", \"data\": {\"order\": \"" + order + "\"}}";
        Answer receipt = API.shopWebhook(eventId, original);
        assertThat(receipt.text("status")).isEqualTo("accepted");
        String inboxId = receipt.text("id");
        JsonNode deadLetter = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> openDeadLetters("source=inbox&peer=shop").stream()
                                .filter(d -> d.path("reference").asText().equals(inboxId))
                                .toList(),
                        found -> found.size() == 1)
                .get(0);
        assertThat(deadLetter.path("reason").asText()).contains("no aggregate id");
        // Replayed the moment the dead letter appears, while the rejecting run may still be closing.
        Answer replayed = API.admin(
                "POST",
                "/admin/dead-letters/" + deadLetter.path("id").asText() + "/replay",
                Map.of(
                        "payload",
                        Map.of("type", "order.created", "data", Map.of("orderId", order)),
                        "reason",
                        "the partner sent the order id as data.order"));

        assertThat(replayed.status()).as(replayed.body().toString()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> entityState(order).equals("created"));
        JsonNode inbox = API.adminGet("/admin/inbox/" + inboxId);
        assertThat(inbox.path("event").path("status").asText()).isEqualTo("PROCESSED");
        assertThat(inbox.path("event").path("outcome").asText()).isEqualTo("APPLIED");
        assertThat(inbox.path("event").path("aggregate").asText()).isEqualTo("order:" + order);
        assertThat(inbox.path("payload").path("data").path("orderId").asText()).isEqualTo(order);
        // The partner's original, sent again, is still the event it signed: a duplicate, not a conflict.
        assertThat(API.shopWebhook(eventId, original).text("status")).isEqualTo("duplicate");

        JsonNode story = story(deadLetter.path("id").asText());
        assertThat(story.path("aggregate").asText()).isEqualTo("order:" + order);
        JsonNode edit = story.path("payloadEdits").get(0);
        assertThat(story.path("payloadEdits")).hasSize(1);
        assertThat(edit.path("source").asText()).isEqualTo("INBOX");
        assertThat(edit.path("rowId").asText()).isEqualTo(inboxId);
        assertThat(edit.path("actor").asText()).isEqualTo(ACTOR);
        assertThat(edit.path("by").isNull()).isTrue();
        assertThat(edit.path("signature").asText()).isEqualTo("verified at intake; edited payload not re-signed");
        assertThat(edit.path("previousPayload")).isEqualTo(tree(original));
        assertThat(edit.path("changes"))
                .isEqualTo(tree("[{\"path\": \"/data/orderId\", \"to\": \"" + order + "\"},"
                        + " {\"path\": \"/data/order\", \"from\": \"" + order + "\"}]"));
    }

    @Test
    void aCorrectionIsTheReplayedDeliverysOwnItsReceiverIsToldAndTheAuditLogKeepsItForGood() throws Exception {
        RECEIVER.script("/fix-bad", TestReceiver.Reply.of(400));
        assertThat(API.admin("POST", "/admin/tenants", Map.of("key", "fix-acme", "name", "Acme"))
                        .status())
                .isEqualTo(201);
        for (String name : List.of("fix-good", "fix-bad")) {
            Answer created = API.admin(
                    "POST",
                    "/admin/endpoints",
                    Map.of(
                            "name",
                            name,
                            "url",
                            RECEIVER.url("/" + name),
                            "tenant",
                            "fix-acme",
                            "eventTypes",
                            List.of("refund.*")));
            assertThat(created.status()).as(created.body().toString()).isEqualTo(201);
        }
        Map<String, Object> original = Map.of("refundId", "r-1", "amount", "5,00");
        assertThat(API.producer(
                                "POST",
                                "/outbox",
                                Map.of(
                                        "eventType", "refund.issued",
                                        "aggregateType", "refund",
                                        "aggregateId", "r-1",
                                        "payload", original,
                                        "tenant", "fix-acme"))
                        .status())
                .isEqualTo(202);
        JsonNode deadLetter = await().atMost(Duration.ofSeconds(30))
                .until(() -> openDeadLetters("source=outbox&peer=fix-bad"), found -> found.size() == 1)
                .get(0);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/fix-good").size() == 1);
        RECEIVER.script("/fix-bad", TestReceiver.Reply.of(200));

        Answer replayed = API.admin(
                "POST",
                "/admin/dead-letters/" + deadLetter.path("id").asText() + "/replay",
                Map.of("payload", Map.of("refundId", "r-1", "amount", 5), "reason", "amounts are numbers"));
        assertThat(replayed.status()).as(replayed.body().toString()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/fix-bad").size() == 2);

        List<TestReceiver.Received> bad = RECEIVER.received("/fix-bad");
        assertThat(bad.get(0).header("relaybox-edited")).isNull();
        assertThat(bad.get(1).header("relaybox-edited")).isEqualTo("true");
        assertThat(data(bad.get(1))).isEqualTo(tree("{\"refundId\": \"r-1\", \"amount\": 5}"));
        // The endpoint that was sent the original, sent it again, gets the original: the edit was not its.
        String portal = API.admin("POST", "/admin/tenants/fix-acme/portal-access", Map.of())
                .text("token");
        String goodDelivery = API.adminGet("/admin/deliveries?endpoint=fix-good")
                .path("items")
                .get(0)
                .path("id")
                .asText();
        assertThat(Answer.of(API.request("/portal/api/deliveries/" + goodDelivery + "/resend", portal)
                                .post(Entity.json(Map.of())))
                        .status())
                .isIn(200, 202, 204);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/fix-good").size() == 2);
        List<TestReceiver.Received> good = RECEIVER.received("/fix-good");
        assertThat(good).allSatisfy(r -> assertThat(r.header("relaybox-edited")).isNull());
        assertThat(data(good.get(1))).isEqualTo(JSON.valueToTree(original));

        JsonNode entry = StreamSupport.stream(
                        API.adminGet("/admin/audit-log").path("items").spliterator(), false)
                .filter(e ->
                        e.path("subject").asText().equals(deadLetter.path("id").asText()))
                .findFirst()
                .orElseThrow();
        assertThat(entry.path("action").asText()).isEqualTo("dead_letter.replayed");
        assertThat(entry.path("actor").asText()).isEqualTo(ACTOR);
        assertThat(entry.path("details").path("edit").path("reason").asText()).isEqualTo("amounts are numbers");
        assertThat(entry.path("details").path("edit").path("changes"))
                .isEqualTo(tree("[{\"path\": \"/amount\", \"from\": \"5,00\", \"to\": 5}]"));
        assertThat(entry.path("hash").asText()).hasSize(64);
        // Checked from the command line beside the running service, as an operator would.
        String verified = CommandLine.run(
                Path.of(APP.getConfiguration().getEmbeddedPostgres().getDataDirectory()),
                Map.of(),
                "audit",
                "--seal",
                entry.path("hash").asText());
        assertThat(verified)
                .contains("the audit log is intact: ")
                .contains("it holds the seal " + entry.path("hash").asText());
    }

    private static List<JsonNode> openDeadLetters(String filter) {
        JsonNode items = API.adminGet("/admin/dead-letters?" + filter).path("items");
        return StreamSupport.stream(items.spliterator(), false).toList();
    }

    private static JsonNode story(String query) {
        Answer answer = API.admin("GET", "/admin/story?q=" + query, null);
        assertThat(answer.status()).isEqualTo(200);
        return answer.body();
    }

    private static String entityState(String order) {
        Answer answer = API.producer("GET", "/entities/order/" + order, null);
        return answer.status() == 200 ? answer.text("state") : "";
    }

    /** The payload a receiver got: the {@code data} of the Standard Webhooks envelope. */
    private static JsonNode data(TestReceiver.Received request) {
        try {
            return JSON.readTree(request.body()).path("data");
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static JsonNode tree(String json) {
        try {
            return JSON.readTree(json);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
