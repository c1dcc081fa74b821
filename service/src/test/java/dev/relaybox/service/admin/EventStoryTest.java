package dev.relaybox.service.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.ShopWebhooks;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.MediaType;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * One order's story, told from whichever id an operator holds: two partner events (created, then paid), the
 * outbound event the payment emitted, its delivery to a healthy receiver and to one that is down (two 503s, then a
 * dead letter).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class EventStoryTest {
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ConfigOverride.config("delivery.retryDelays", "1s"), ConfigOverride.config("delivery.jitter", "0"));
    static final Api API = new Api(APP);
    static final String ORDER = "S-" + System.nanoTime();

    static JsonNode outboxRow;

    @BeforeAll
    static void anOrderIsCreatedAndPaidAndOneReceiverIsDown() {
        RECEIVER.script("/down", TestReceiver.Reply.of(503));
        API.admin(
                "POST",
                "/admin/endpoints",
                Map.of("name", "story-ok", "url", RECEIVER.url("/ok"), "eventTypes", List.of("order.*")));
        API.admin(
                "POST",
                "/admin/endpoints",
                Map.of("name", "story-down", "url", RECEIVER.url("/down"), "eventTypes", List.of("order.*")));
        assertThat(send("evt-created-" + ORDER, "order.created").status()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(30)).until(() -> entityState().equals("created"));
        assertThat(send("evt-paid-" + ORDER, "order.paid").status()).isEqualTo(200);

        outboxRow = await().atMost(Duration.ofSeconds(60))
                .until(
                        () -> API.adminGet("/admin/outbox?aggregate=order:" + ORDER)
                                .path("items")
                                .get(0),
                        row -> row != null && row.path("status").asText().equals("PROCESSED"));
    }

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void anyIdLeadsToTheWholeStoryInboxDecisionOutboxDeliveriesAndAttempts() {
        String outboxId = outboxRow.path("id").asText();
        JsonNode byPartnerEventId = story("evt-paid-" + ORDER);

        assertThat(byPartnerEventId.path("aggregate").asText()).isEqualTo("order:" + ORDER);
        assertThat(byPartnerEventId.path("entity").path("state").asText()).isEqualTo("paid");
        JsonNode inbox = byPartnerEventId.path("inbox");
        assertThat(inbox.findValuesAsText("eventType")).containsExactly("order.created", "order.paid");
        assertThat(inbox.findValuesAsText("outcome")).containsExactly("APPLIED", "APPLIED");
        assertThat(inbox.get(1).path("matched").asBoolean()).isTrue();
        assertThat(inbox.get(0).path("matched").asBoolean()).isFalse();
        assertThat(inbox.get(1).path("temporalUrl").asText()).contains("/workflows/inbox-shop-evt-paid-");

        JsonNode emitted = byPartnerEventId.path("outbox");
        assertThat(emitted).hasSize(1);
        assertThat(emitted.get(0).path("eventType").asText()).isEqualTo("order.payment_confirmed");
        assertThat(emitted.get(0).path("temporalUrl").asText()).endsWith("/workflows/outbox-" + outboxId);
        JsonNode ok = delivery(emitted.get(0), "story-ok");
        JsonNode down = delivery(emitted.get(0), "story-down");
        assertThat(emitted.get(0).path("summary").asText())
                .isEqualTo("done, not all delivered: 1 of 2 delivered, 1 dead-lettered");
        assertThat(inbox.get(1).path("summary").asText()).startsWith("applied ");
        assertThat(ok.path("status").asText()).isEqualTo("DELIVERED");
        assertThat(ok.path("tries").findValuesAsText("statusCode")).containsExactly("200");
        assertThat(down.path("status").asText()).isEqualTo("DEAD_LETTERED");
        assertThat(down.path("summary").asText()).startsWith("dead-lettered after 2 attempts");
        assertThat(down.path("tries").findValuesAsText("statusCode")).containsExactly("503", "503");
        JsonNode deadLetters = byPartnerEventId.path("deadLetters");
        assertThat(deadLetters).hasSize(1);
        assertThat(deadLetters.get(0).path("reference").asText())
                .isEqualTo(down.path("id").asText());

        // The webhook-id a receiver saw (the outbox id), a delivery id, the inbox id, the dead letter id and the
        // aggregate all lead to the same story, marking what was asked for.
        String webhookId = RECEIVER.received("/ok").get(0).header("webhook-id");
        assertThat(matchedOutbox(story(webhookId))).isTrue();
        assertThat(delivery(story(down.path("id").asText()).path("outbox").get(0), "story-down")
                        .path("matched")
                        .asBoolean())
                .isTrue();
        assertThat(story(inbox.get(0).path("id").asText())
                        .path("inbox")
                        .get(0)
                        .path("matched")
                        .asBoolean())
                .isTrue();
        JsonNode byDeadLetter = story(deadLetters.get(0).path("id").asText());
        assertThat(byDeadLetter.path("deadLetters").get(0).path("matched").asBoolean())
                .isTrue();
        assertThat(delivery(byDeadLetter.path("outbox").get(0), "story-down")
                        .path("matched")
                        .asBoolean())
                .isTrue();
        for (JsonNode story : List.of(story(webhookId), byDeadLetter, story("order:" + ORDER))) {
            assertThat(story.path("aggregate").asText()).isEqualTo("order:" + ORDER);
            assertThat(story.path("inbox")).hasSize(2);
            assertThat(story.path("outbox")).hasSize(1);
        }

        API.admin("GET", "/admin/story?q=nothing-like-this", null).assertError(404, "story_not_found");
        API.admin("GET", "/admin/story", null).assertError(400, "invalid_request");
        API.anonymous("GET", "/admin/story?q=order:" + ORDER, null).assertError(401, "unauthorized");
    }

    @Test
    void operatorSeesTheWholeStoryOnOneScreen() throws Exception {
        ChromeDriver browser = Browsers.headlessChromium("1400,1100");
        try {
            String webhookId = RECEIVER.received("/ok").get(0).header("webhook-id");
            browser.get(API.url("/admin/"));
            browser.findElement(By.id("token")).sendKeys(TestApp.ADMIN_TOKEN);
            browser.findElement(By.id("find-q")).sendKeys(webhookId);
            browser.findElement(By.id("find-go")).click();

            WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
            List<WebElement> steps = wait.until(d -> {
                List<WebElement> found = d.findElements(By.cssSelector("#story-steps > li"));
                return found.size() == 3 ? found : null;
            });
            assertThat(browser.findElement(By.id("story-title")).getText()).contains("order:" + ORDER);
            assertThat(browser.findElement(By.id("story-entity")).getText()).contains("is paid");
            // In time order: the two partner events, then what the payment emitted.
            assertThat(steps.get(0).getText()).contains("order.created", "decision: applied");
            assertThat(steps.get(1).getText()).contains("order.paid", "decision: applied");
            WebElement outbound = steps.get(2);
            assertThat(outbound.getAttribute("class")).contains("outbound", "matched");
            assertThat(outbound.getText())
                    .contains(
                            "order.payment_confirmed",
                            "webhook-id " + webhookId,
                            "done, not all delivered: 1 of 2 delivered, 1 dead-lettered",
                            "story-ok",
                            "delivered",
                            "story-down",
                            "dead-lettered after 2 attempts",
                            "503",
                            "dead letter");
            assertThat(outbound.findElement(By.linkText("Temporal")).getAttribute("href"))
                    .endsWith("/workflows/outbox-" + webhookId);
            assertThat(steps.get(1).findElement(By.linkText("Temporal")).getAttribute("href"))
                    .contains("/workflows/inbox-shop-evt-paid-");
            Files.createDirectories(Path.of("target"));
            Files.write(Path.of("target/admin-event-story.png"), browser.getScreenshotAs(OutputType.BYTES));

            // A search that finds nothing takes the last story off the screen: it is not the answer.
            browser.findElement(By.id("find-q")).clear();
            browser.findElement(By.id("find-q")).sendKeys("nothing-like-this");
            browser.findElement(By.id("find-go")).click();
            wait.until(d -> !d.findElement(By.id("story")).isDisplayed());
        } finally {
            browser.quit();
        }
    }

    private static boolean matchedOutbox(JsonNode story) {
        return story.path("outbox").get(0).path("matched").asBoolean();
    }

    private static JsonNode delivery(JsonNode outboxStep, String endpoint) {
        for (JsonNode delivery : outboxStep.path("deliveries")) {
            if (delivery.path("endpoint").asText().equals(endpoint)) {
                return delivery;
            }
        }
        throw new AssertionError("no delivery to " + endpoint + " in " + outboxStep);
    }

    private static JsonNode story(String query) {
        Answer answer = API.admin("GET", "/admin/story?q=" + URLEncoder.encode(query, StandardCharsets.UTF_8), null);
        assertThat(answer.status()).as("story of " + query).isEqualTo(200);
        return answer.body();
    }

    private static String entityState() {
        Answer answer = API.producer("GET", "/entities/order/" + ORDER, null);
        return answer.status() == 200 ? answer.text("state") : "";
    }

    /** A webhook from the example partner "shop", signed per Standard Webhooks with its development secret. */
    private static Answer send(String eventId, String type) {
        String body = "{\"type\": \"" + type + "\", \"data\": {\"orderId\": \"" + ORDER + "\"}}";
        long timestamp = Instant.now().getEpochSecond();
        return Answer.of(API.request("/webhooks/shop", null)
                .header("webhook-id", eventId)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", ShopWebhooks.signature(eventId, timestamp, body))
                .post(Entity.entity(body, MediaType.APPLICATION_JSON)));
    }
}
