package dev.relaybox.service.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RealTemporal;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.ShopWebhooks;
import dev.relaybox.service.TestApp;
import dev.relaybox.service.temporal.TemporalDevServer;
import dev.relaybox.service.temporal.TemporalSetup;
import dev.relaybox.store.SecretBox;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.MediaType;
import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.ElementClickInterceptedException;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.NoSuchFrameException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.TimeoutException;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The Temporal Web UI as an on-call engineer uses it to find out why an event is stuck: Relaybox in production
 * shape against the real Temporal server ({@code temporal server start-dev} with its UI, search attributes
 * registered by {@link TemporalSetup}), a real headless Chromium, the README's queries. Screenshots go to
 * {@code target/temporal-ui/} (the README shows copies from {@code docs/images/}).
 */
class TemporalUiBrowserTest {
    static final String ADMIN_TOKEN = "ui-test-admin-token-0123456789abcdef";
    static final String PRODUCER_TOKEN = "ui-test-producer-token-0123456789abcdef";
    static final String SHOP_SECRET = "whsec_dWktdGVzdC1wYXJ0bmVyLXNlY3JldC0wMDAwMDA=";
    static final String NAMESPACE = "default";

    static final TestReceiver RECEIVER = new TestReceiver();

    static TemporalDevServer temporal;
    static DropwizardAppExtension<RelayboxConfiguration> app;
    static Api api;
    static ChromeDriver browser;

    @BeforeAll
    static void start() throws Exception {
        temporal = RealTemporal.start("temporal-ui", options -> options.withUi(TestApp.freePort()));
        // As `relaybox temporal setup` does, before any worker polls.
        WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
                .setTarget(temporal.address())
                .build());
        try (TemporalSetup setup = new TemporalSetup(stubs, NAMESPACE, Duration.ofMinutes(1))) {
            setup.run(Duration.ofDays(1));
        } finally {
            stubs.shutdownNow();
        }
        // Production shape: an external Temporal server, so the development tokens and secret are refused.
        // Waits that only the test's own actions end: an hour's recheck, an hour before the third attempt.
        app = TestApp.extension(
                ConfigOverride.config("temporal.address", temporal.address()),
                ConfigOverride.config("temporal.namespace", NAMESPACE),
                ConfigOverride.config("temporal.uiBaseUrl", uiUrl()),
                ConfigOverride.config("auth.adminTokens", ADMIN_TOKEN),
                ConfigOverride.config("auth.producerTokens", PRODUCER_TOKEN),
                ConfigOverride.config("secrets.key", SecretBox.newKey()),
                ConfigOverride.config("partners.shop.signature.secrets", SHOP_SECRET),
                ConfigOverride.config("delivery.allowedPrivateNetworks", "127.0.0.0/8"),
                ConfigOverride.config("delivery.retryDelays", "1s,1h"),
                ConfigOverride.config("delivery.jitter", "0"),
                ConfigOverride.config("inbox.recheckInterval", "1h"));
        app.before();
        api = new Api(app);
        browser = Browsers.headlessChromium();
        // The screenshots' size: the viewport, whatever the window decorations of this Chromium's headless mode.
        browser.executeCdpCommand(
                "Emulation.setDeviceMetricsOverride",
                Map.of("width", 1280, "height", 800, "deviceScaleFactor", 1, "mobile", false));
    }

    /** The application stops before the server its workers poll. */
    @AfterAll
    static void stop() {
        if (browser != null) {
            browser.quit();
        }
        if (app != null) {
            app.after();
        }
        if (temporal != null) {
            temporal.close();
        }
        RECEIVER.close();
    }

    private static String uiUrl() {
        return temporal.uiUrl().orElseThrow();
    }

    @Test
    void deferredEventIsFoundByTheReadmeQueryAndSaysWhatItWaitsFor() throws Exception {
        // order.paid for order 42 arrives before its order.created.
        String inboxId = send("evt-paid-42", "{\"type\": \"order.paid\", \"data\": {\"orderId\": \"42\"}}")
                .text("id");
        await().atMost(Duration.ofSeconds(30)).until(() -> inboxStatus(inboxId).equals("DEFERRED"));
        String workflowId = "inbox-shop-evt-paid-42";

        openFromList("RelayStatus=\"deferred\" AND RelayAggregate=\"order:42\"", workflowId);
        screenshot("temporal-ui-query.png");
        click(d -> link(d, workflowId));
        awaitWorkflowPage(workflowId);

        UserMetadata metadata = userMetadata();
        assertThat(metadata.summary()).isEqualTo("apply order.paid from shop to order:42");
        assertThat(metadata.details())
                .isEqualTo("inbox event " + inboxId + " from shop, event id evt-paid-42\n"
                        + "its story on the admin page: /admin/story?q=" + inboxId);
        assertThat(metadata.currentDetails())
                .startsWith("waiting for order.created; entity does not exist yet; rechecks every 1h until ");
        screenshot("temporal-ui-deferred.png");
        eventHistoryShows("recheck order.paid (waiting for order.created)");
        // The row's details run past the window's edge; opened, the row shows them whole.
        click(d -> d.findElements(By.cssSelector("[data-testid='event-summary-row']")).stream()
                .filter(row -> row.getText().contains("Timer Started"))
                .findFirst()
                .orElse(null));
        screenshot("temporal-ui-deferred-history.png");
    }

    @Test
    void retryingDeliveryIsFoundByTheReadmeQueryAndSaysWhatFailedAndWhatComesNext() throws Exception {
        RECEIVER.script("/billing", TestReceiver.Reply.of(503));
        admin(
                "POST",
                "/admin/endpoints",
                Map.of("name", "billing", "url", RECEIVER.url("/billing"), "eventTypes", List.of("invoice.*")));
        String outboxId = producer(
                        "POST",
                        "/outbox",
                        Map.of(
                                "eventType",
                                "invoice.paid",
                                "aggregateType",
                                "invoice",
                                "aggregateId",
                                "7",
                                "payload",
                                Map.of("total", 30)))
                .text("id");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/billing").size() == 2);
        String workflowId = "outbox-" + outboxId;

        openFromList("RelayStatus=\"retrying\" AND RelayEndpoints=\"billing\"", workflowId);
        click(d -> link(d, workflowId));
        awaitWorkflowPage(workflowId);

        UserMetadata metadata = userMetadata();
        assertThat(metadata.summary()).isEqualTo("deliver invoice.paid for invoice:7 to its subscribers");
        assertThat(metadata.details())
                .isEqualTo("outbox event " + outboxId + " (the webhook-id receivers see)\n"
                        + "its story on the admin page: /admin/story?q=" + outboxId);
        assertThat(metadata.currentDetails())
                .startsWith("billing: attempt 2 failed: 503 Service Unavailable; next attempt ");
        screenshot("temporal-ui-retrying.png");
        eventHistoryShows("wait before attempt 3 to " + RECEIVER.url("/…"));
    }

    @Test
    void deadLetteredDeliveryIsFoundByTheReadmeQueryAndSaysWhy() throws Exception {
        RECEIVER.script("/crm", TestReceiver.Reply.of(400));
        admin(
                "POST",
                "/admin/endpoints",
                Map.of("name", "crm", "url", RECEIVER.url("/crm"), "eventTypes", List.of("order.shipped")));
        String outboxId = producer(
                        "POST",
                        "/outbox",
                        Map.of(
                                "eventType",
                                "order.shipped",
                                "aggregateType",
                                "order",
                                "aggregateId",
                                "43",
                                "payload",
                                Map.of("carrier", "post")))
                .text("id");
        String workflowId = "outbox-" + outboxId;

        openFromList("RelayStatus=\"dead_lettered\" AND RelayEventType=\"order.shipped\"", workflowId);
        click(d -> link(d, workflowId));
        awaitWorkflowPage(workflowId);

        UserMetadata metadata = userMetadata();
        assertThat(metadata.summary()).isEqualTo("deliver order.shipped for order:43 to its subscribers");
        assertThat(metadata.currentDetails())
                .isEqualTo("crm: dead-lettered: endpoint answered 400 Bad Request; not retried");
        screenshot("temporal-ui-dead-lettered.png");
        eventHistoryShows("dead-letter the delivery to crm");
    }

    @Test
    void adminPagesTemporalUiLinkLandsOnTheWorkflow() {
        String inboxId = send("evt-shipped-44", "{\"type\": \"order.shipped\", \"data\": {\"orderId\": \"44\"}}")
                .text("id");
        await().atMost(Duration.ofSeconds(30)).until(() -> inboxStatus(inboxId).equals("DEFERRED"));

        browser.get(api.url("/admin/"));
        browser.findElement(By.id("token")).sendKeys(ADMIN_TOKEN);
        browser.findElement(By.id("connect")).click();
        String adminPage = browser.getWindowHandle();
        wait(browser)
                .until(d -> d.findElements(By.cssSelector("#deferred-rows tr")).stream()
                        .filter(row -> row.getText().contains("order:44"))
                        .findFirst()
                        .map(row -> row.findElement(By.linkText("Temporal UI")))
                        .orElse(null))
                .click();
        wait(browser).until(d -> d.getWindowHandles().size() == 2);
        browser.switchTo()
                .window(browser.getWindowHandles().stream()
                        .filter(handle -> !handle.equals(adminPage))
                        .findFirst()
                        .orElseThrow());
        try {
            awaitWorkflowPage("inbox-shop-evt-shipped-44");
            assertThat(userMetadata().summary()).isEqualTo("apply order.shipped from shop to order:44");
        } finally {
            browser.close();
            browser.switchTo().window(adminPage);
        }
    }

    /** The UI's workflow list for the query, once it lists the workflow (visibility is eventually consistent). */
    private static void openFromList(String query, String workflowId) {
        String list = uiUrl() + "/namespaces/" + NAMESPACE + "/workflows?query="
                + URLEncoder.encode(query, StandardCharsets.UTF_8).replace("+", "%20");
        browser.get(list);
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> {
            try {
                return new WebDriverWait(browser, Duration.ofSeconds(5)).until(d -> link(d, workflowId)) != null;
            } catch (TimeoutException notListedYet) {
                browser.navigate().refresh();
                throw notListedYet;
            }
        });
    }

    private static WebElement link(WebDriver driver, String text) {
        return driver.findElements(By.linkText(text)).stream().findFirst().orElse(null);
    }

    /** Waits for the workflow's own page: /namespaces/{ns}/workflows/{workflowId}/{runId}/..., with its id shown. */
    private static void awaitWorkflowPage(String workflowId) {
        Pattern page = Pattern.compile(
                ".*/namespaces/" + NAMESPACE + "/workflows/" + Pattern.quote(workflowId) + "/[0-9a-f-]{36}/[a-z-]+");
        wait(browser)
                .withMessage(() -> "the workflow's page, still at " + browser.getCurrentUrl())
                .until(d -> page.matcher(d.getCurrentUrl()).matches());
        wait(browser)
                .until(d -> d.findElement(By.cssSelector("[data-testid='workflow-id-heading']"))
                        .getText()
                        .contains(workflowId));
    }

    record UserMetadata(String summary, String details, String currentDetails) {}

    /** The "User Metadata" tab: the static summary and details and the current details, each in its own frame. */
    private static UserMetadata userMetadata() {
        click(d -> d.findElement(By.cssSelector("[data-testid='user-metadata-tab']")));
        String summary = frameText("user-metadata-summary");
        // Without static details the UI says so in place of their frame.
        String details = wait(browser)
                        .until(d ->
                                !d.findElements(By.id("user-metadata-details")).isEmpty()
                                        || d.findElement(By.cssSelector("[data-testid='user-metadata']"))
                                                .getText()
                                                .contains("No details available"))
                ? detailsOrNone()
                : null;
        return new UserMetadata(summary, details, frameText("user-metadata-current-details"));
    }

    private static String detailsOrNone() {
        return browser.findElements(By.id("user-metadata-details")).isEmpty()
                ? "(no details available)"
                : frameText("user-metadata-details");
    }

    /** The text of an iframe the UI renders (and may render again while it is read), once it has some. */
    private static String frameText(String id) {
        try {
            return wait(browser)
                    .ignoring(NoSuchFrameException.class)
                    .ignoring(NoSuchElementException.class)
                    .until(d -> {
                        d.switchTo().defaultContent();
                        d.switchTo().frame(d.findElement(By.id(id)));
                        String text =
                                d.findElement(By.tagName("body")).getText().strip();
                        return text.isEmpty() ? null : text;
                    });
        } finally {
            browser.switchTo().defaultContent();
        }
    }

    /** The "Event History" tab, once it shows the text (a timer's or an activity's summary). */
    private static void eventHistoryShows(String text) {
        click(d -> d.findElement(By.cssSelector("[data-testid='history-tab']")));
        wait(browser).until(d -> d.findElement(By.tagName("main")).getText().contains(text));
    }

    private static void screenshot(String name) throws IOException {
        Path directory = Files.createDirectories(Path.of("target", "temporal-ui"));
        Files.write(directory.resolve(name), browser.getScreenshotAs(OutputType.BYTES));
    }

    /** The UI renders as its requests come back, so an element found a moment ago may be gone: waits ignore that. */
    /**
     * Clicks what {@code find} finds once nothing covers it: the UI's floating buttons and panels may lie over a row
     * for a moment, or for good until it is scrolled to the middle of the window.
     */
    private static void click(Function<WebDriver, WebElement> find) {
        wait(browser).ignoring(ElementClickInterceptedException.class).until(d -> {
            WebElement element = find.apply(d);
            if (element == null) {
                return false;
            }
            ((JavascriptExecutor) d).executeScript("arguments[0].scrollIntoView({block: 'center'})", element);
            element.click();
            return true;
        });
    }

    private static WebDriverWait wait(ChromeDriver driver) {
        // Generous: the UI and Chromium share two loaded cores with everything else.
        WebDriverWait wait = new WebDriverWait(driver, Duration.ofSeconds(30));
        wait.ignoring(StaleElementReferenceException.class);
        return wait;
    }

    private static String inboxStatus(String id) {
        return admin("GET", "/admin/inbox/" + id, null)
                .body()
                .path("event")
                .path("status")
                .asText();
    }

    private static Answer admin(String method, String path, Object body) {
        var request = api.request(path, ADMIN_TOKEN);
        return Answer.of(body == null ? request.method(method) : request.method(method, Entity.json(body)));
    }

    private static Answer producer(String method, String path, Object body) {
        var request = api.request(path, PRODUCER_TOKEN);
        return Answer.of(body == null ? request.method(method) : request.method(method, Entity.json(body)));
    }

    /** A signed webhook from the partner "shop", through Relaybox's HTTP intake. */
    private static Answer send(String eventId, String body) {
        long timestamp = Instant.now().getEpochSecond();
        return Answer.of(api.request("/webhooks/shop", null)
                .header("webhook-id", eventId)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", ShopWebhooks.signature(SHOP_SECRET, eventId, timestamp, body))
                .post(Entity.entity(body, MediaType.APPLICATION_JSON)));
    }
}
