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
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The admin page's history view in a real headless Chromium, in embedded mode where no Temporal UI can attach: an
 * operator follows a row's "History" link and reads what the workflow did, newest first.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class WorkflowHistoryBrowserTest {
    static final TestReceiver RECEIVER = new TestReceiver();
    // A long recheck and a long second wait: only a signal can move either workflow on within the test.
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ConfigOverride.config("inbox.recheckInterval", "1h"),
            ConfigOverride.config("delivery.retryDelays", "1s,1h"),
            ConfigOverride.config("delivery.jitter", "0"));
    static final Api API = new Api(APP);

    static ChromeDriver browser;

    @BeforeAll
    static void startBrowser() {
        browser = Browsers.headlessChromium();
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
        RECEIVER.close();
    }

    @Test
    void deferredThenReleasedInboxEventShowsItsTimerAndTheReleaseSignalInOrder() throws Exception {
        String order = "hist-" + System.nanoTime();
        send("evt-c-" + order, event("order.created", order));
        await().atMost(Duration.ofSeconds(30)).until(() -> entityState(order).equals("created"));
        String shippedId = send("evt-s-" + order, event("order.shipped", order)).text("id");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> inboxStatus(shippedId).equals("DEFERRED"));

        openAdminPage();
        String historyUrl = wait(browser)
                .until(d -> row("#deferred-rows", "order:" + order)
                        .findElement(By.linkText("History"))
                        .getAttribute("href"));
        // Read inside the wait: the page re-renders its rows while it refreshes.
        List<String> temporalUiLinks = wait(browser)
                .until(d -> row("#deferred-rows", "order:" + order).findElements(By.linkText("Temporal UI")).stream()
                        .map(WebElement::getText)
                        .toList());
        assertThat(temporalUiLinks).as("no Temporal UI for the embedded server").isEmpty();

        send("evt-p-" + order, event("order.paid", order));
        await().atMost(Duration.ofSeconds(30)).until(() -> entityState(order).equals("shipped"));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> API.adminGet("/admin/workflows/inbox-shop-evt-s-" + order + "/history")
                        .path("status")
                        .asText()
                        .equals("completed"));

        browser.get(historyUrl);
        List<String> timeline = timeline();
        screenshot("workflow-history-inbox.png");
        assertThat(browser.findElement(By.id("status")).getText()).isEqualTo("completed");
        assertThat(timeline.get(0)).startsWith("completed");
        assertInOrder(
                timeline,
                "completed",
                "activity decide order.shipped for order:" + order + " (InboxDecide) | result {\"outcome\":\"APPLIED\"",
                "timer 'recheck order.shipped (waiting for order.paid)' cancelled",
                "signal release received",
                "timer 'recheck order.shipped (waiting for order.paid)' started for 1h",
                "search attributes set | RelayAttempts = 1, RelayStatus = deferred",
                "activity decide order.shipped for order:" + order
                        + " (InboxDecide) | result {\"outcome\":\"DEFERRED\"",
                "started InboxEvent | apply order.shipped from shop to order:" + order);
    }

    @Test
    void threeAttemptDeliveryShowsBothWaitsAndTheRetryNowSignalInOrder() throws Exception {
        RECEIVER.script("/three", TestReceiver.Reply.of(503), TestReceiver.Reply.of(503), TestReceiver.Reply.of(200));
        API.admin(
                "POST",
                "/admin/endpoints",
                Map.of("name", "three", "url", RECEIVER.url("/three"), "eventTypes", List.of("invoice.*")));
        String outboxId =
                API.enqueue("invoice.paid", "invoice", "3", Map.of("total", 30)).text("id");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/three").size() == 2 && retrying(outboxId) != null);

        openAdminPage();
        String historyUrl = wait(browser)
                .until(d -> row("#retrying-rows", "invoice.paid")
                        .findElement(By.linkText("History"))
                        .getAttribute("href"));
        assertThat(historyUrl).endsWith("/admin/workflows/outbox-" + outboxId);
        wait(browser).until(d -> {
            row("#retrying-rows", "invoice.paid")
                    .findElement(By.xpath(".//button[text()='Retry now']"))
                    .click();
            return true;
        });
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/three").size() == 3);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> API.adminGet("/admin/workflows/outbox-" + outboxId + "/history")
                        .path("status")
                        .asText()
                        .equals("completed"));

        browser.get(historyUrl);
        List<String> timeline = timeline();
        screenshot("workflow-history-delivery.png");
        // The history shows the endpoint's scheme, host and port only.
        String url = RECEIVER.url("/…");
        assertInOrder(
                timeline,
                "completed",
                "activity attempt 3 to " + url + " (DeliverySend) | result {\"result\":{\"outcome\":\"DELIVERED\"",
                "signal retryNow received",
                "timer 'wait before attempt 3 to " + url + "' started for 1h",
                "activity attempt 2 to " + url
                        + " (DeliverySend) | result {\"result\":{\"outcome\":\"RETRYABLE\",\"statusCode\":503",
                "timer 'wait before attempt 2 to " + url + "' fired",
                "timer 'wait before attempt 2 to " + url + "' started for 1s",
                // The first attempt made with any others' that went at once: its answer is one of a list.
                "activity attempt 1 to " + url
                        + " (DeliverySendFirst) | result [{\"result\":{\"outcome\":\"RETRYABLE\",\"statusCode\":503",
                "started OutboxDelivery");
    }

    /** Each expected entry starts a line of the timeline, in this order (other lines may come between). */
    static void assertInOrder(List<String> timeline, String... expectedPrefixes) {
        int from = 0;
        for (String expected : expectedPrefixes) {
            int found = -1;
            for (int i = from; i < timeline.size() && found < 0; i++) {
                if (timeline.get(i).startsWith(expected)) {
                    found = i;
                }
            }
            assertThat(found)
                    .as("'%s' after line %d of%n%s", expected, from, String.join("\n", timeline))
                    .isNotNegative();
            from = found + 1;
        }
    }

    @Test
    void historyOfAnUnknownWorkflowIsA404WithAReasonAndNeedsTheAdminToken() {
        API.admin("GET", "/admin/workflows/outbox-unknown/history", null).assertError(404, "workflow_not_found");
        API.anonymous("GET", "/admin/workflows/outbox-unknown/history", null).assertError(401, "unauthorized");
    }

    private static void openAdminPage() {
        browser.get(API.url("/admin/"));
        WebElement token = browser.findElement(By.id("token"));
        token.clear();
        token.sendKeys(TestApp.ADMIN_TOKEN);
        browser.findElement(By.id("connect")).click();
    }

    /** The rendered timeline, newest first: "title | detail" per entry (just the title when it has none). */
    private static List<String> timeline() {
        return wait(browser).until(d -> {
            List<WebElement> items = d.findElements(By.cssSelector("#timeline li"));
            if (items.isEmpty()) {
                return null;
            }
            return items.stream()
                    .map(li -> {
                        String title = li.findElement(By.className("title")).getText();
                        List<WebElement> detail = li.findElements(By.className("detail"));
                        return detail.isEmpty()
                                ? title
                                : title + " | " + detail.get(0).getText();
                    })
                    .toList();
        });
    }

    private static void screenshot(String name) throws Exception {
        Files.createDirectories(Path.of("target"));
        Files.write(Path.of("target", name), browser.getScreenshotAs(OutputType.BYTES));
    }

    /** The page reloads its tables as it loads, so an element found a moment ago may be gone: waits ignore that. */
    private static WebDriverWait wait(ChromeDriver driver) {
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(20));
        wait.ignoring(StaleElementReferenceException.class);
        return wait;
    }

    private static WebElement row(String tbody, String containing) {
        return wait(browser)
                .until(d -> d.findElements(By.cssSelector(tbody + " tr")).stream()
                        .filter(r -> r.getText().contains(containing))
                        .findFirst()
                        .orElse(null));
    }

    private static JsonNode retrying(String outboxId) {
        for (JsonNode d : API.adminGet("/admin/deliveries?status=retrying").path("items")) {
            if (d.path("outboxId").asText().equals(outboxId)
                    && d.path("attempts").asInt() == 2) {
                return d;
            }
        }
        return null;
    }

    private static String entityState(String order) {
        Answer answer = API.producer("GET", "/entities/order/" + order, null);
        return answer.status() == 200 ? answer.text("state") : "";
    }

    private static String inboxStatus(String id) {
        return API.adminGet("/admin/inbox/" + id).path("event").path("status").asText();
    }

    private static String event(String type, String orderId) {
        return "{\"type\": \"" + type + "\", \"data\": {\"orderId\": \"" + orderId + "\"}}";
    }

    private static Answer send(String eventId, String body) {
        long timestamp = Instant.now().getEpochSecond();
        return Answer.of(API.request("/webhooks/shop", null)
                .header("webhook-id", eventId)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", ShopWebhooks.signature(eventId, timestamp, body))
                .post(Entity.entity(body, MediaType.APPLICATION_JSON)));
    }
}
