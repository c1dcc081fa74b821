package dev.relaybox.service.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.Alert;
import org.openqa.selenium.By;
import org.openqa.selenium.NoSuchElementException;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The admin page in a real headless Chromium: find a dead letter, replay it, see it resolved; fix a dead letter's
 * payload, replay it and see the edit in its story; see each endpoint's health and controls.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class AdminPageBrowserTest {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension();
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
    void operatorFindsADeadLetterReplaysItAndSeesItResolved() throws Exception {
        refusingEndpoint("page", 400, "order.*");
        API.enqueue("order.refunded", "order", "7", Map.of("amount", 12));
        await().atMost(Duration.ofSeconds(30)).until(() -> openDeadLetters() == 1);

        openPageWithToken();
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        WebElement row = wait.until(d -> d.findElements(By.cssSelector("#dead-letter-rows tr[data-id]")).stream()
                .findFirst()
                .orElse(null));
        assertThat(row.getText()).contains("order.refunded", "400 Bad Request", "outbound", "page");
        assertThat(row.getText()).as("the endpoint's name, not its URL").doesNotContain("http://");
        assertThat(browser.findElement(By.id("count-dead")).getText()).isEqualTo("1");
        assertThat(row.findElement(By.linkText("History")).getAttribute("href")).contains("/admin/workflows/outbox-");
        Files.createDirectories(Path.of("target"));
        Files.write(Path.of("target/admin-page.png"), browser.getScreenshotAs(OutputType.BYTES));

        RECEIVER.script("/page", TestReceiver.Reply.of(200));
        row.findElement(By.xpath(".//button[text()='Replay']")).click();
        Alert confirm = wait.until(ExpectedConditions.alertIsPresent());
        assertThat(confirm.getText()).contains("order.refunded", "to page");
        confirm.accept();

        wait.until(d -> d.findElement(By.id("message")).getText().startsWith("Replayed dead letter"));
        wait.until(d ->
                d.findElements(By.cssSelector("#dead-letter-rows tr[data-id]")).isEmpty());
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/page").size() == 2);
        assertThat(openDeadLetters()).isZero();
    }

    @Test
    void operatorFixesADeadLettersPayloadReplaysItAndSeesTheEditInTheStory() throws Exception {
        refusingEndpoint("fix-page", 422, "refund.*");
        API.enqueue("refund.issued", "refund", "r-9", Map.of("refundId", "r-9", "amount", "12,50"));
        await().atMost(Duration.ofSeconds(30)).until(() -> openDeadLetters("refund.issued") == 1);
        RECEIVER.script("/fix-page", TestReceiver.Reply.of(200));

        openPageWithToken();
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        wait.ignoring(StaleElementReferenceException.class);
        // The page loads once on its own (the token is remembered) and again on the click: click in a fresh row.
        wait.until(d -> {
            d.findElements(By.cssSelector("#dead-letter-rows tr[data-id]")).stream()
                    .filter(row -> row.getText().contains("refund.issued"))
                    .findFirst()
                    .orElseThrow(() -> new NoSuchElementException("no dead letter of refund.issued yet"))
                    .findElement(By.xpath(".//button[text()='Fix & replay']"))
                    .click();
            return true;
        });
        WebElement payload = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("edit-payload")));
        assertThat(payload.getAttribute("value")).contains("\"amount\": \"12,50\"", "\"refundId\": \"r-9\"");
        payload.clear();
        payload.sendKeys("{\"refundId\": \"r-9\", \"amount\": 12.5}");
        browser.findElement(By.id("edit-reason")).sendKeys("the receiver wants the amount as a number");
        browser.findElement(By.id("edit-by")).sendKeys("bob");
        browser.findElement(By.id("edit-replay")).click();
        Alert confirm = wait.until(ExpectedConditions.alertIsPresent());
        assertThat(confirm.getText()).contains("with the edited payload", "the receiver wants the amount as a number");
        confirm.accept();

        WebElement edit = wait.until(ExpectedConditions.visibilityOfElementLocated(
                By.cssSelector("#story-steps .step.outbound .payload-edit")));
        assertThat(edit.getText())
                .contains(
                        "payload edited",
                        "by bob (admin token ",
                        "the receiver wants the amount as a number",
                        "/amount: \"12,50\" → 12.5");
        assertThat(browser.findElement(By.id("message")).getText()).contains("with the corrected payload");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/fix-page").stream()
                        .anyMatch(r -> r.status() == 200 && new String(r.body()).contains("\"amount\": 12.5")));
        assertThat(openDeadLetters("refund.issued")).isZero();

        browser.findElement(By.id("find-q")).sendKeys("refund:r-9");
        browser.findElement(By.id("find-go")).click();
        wait.until(d -> d.findElement(By.id("story-steps")).getText().contains("delivered to its endpoint"));
        // The story may render again meanwhile (the page refreshes itself): read it in the wait, which retries.
        wait.until(d -> d.findElement(By.cssSelector("#story-steps .payload-edit"))
                .getText()
                .contains("the receiver wants the amount as a number"));
        Files.createDirectories(Path.of("target"));
        Files.write(Path.of("target/admin-fix-then-replay.png"), browser.getScreenshotAs(OutputType.BYTES));
    }

    @Test
    void replayAllMatchingSaysHowManyItWillReplayAndWaitsForTheOperatorsYes() {
        refusingEndpoint("bulk-page", 400, "parcel.*");
        for (String parcel : List.of("p-1", "p-2")) {
            API.enqueue("parcel.lost", "parcel", parcel, Map.of());
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> openDeadLetters("parcel.lost") == 2);
        RECEIVER.script("/bulk-page", TestReceiver.Reply.of(200));

        openPageWithToken();
        browser.findElement(By.id("f-eventType")).sendKeys("parcel.lost");
        browser.findElement(By.id("replay-all")).click();
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        Alert first = wait.until(ExpectedConditions.alertIsPresent());
        assertThat(first.getText()).isEqualTo("Replay 2 dead letters matching this filter?");
        first.dismiss();
        assertThat(openDeadLetters("parcel.lost"))
                .as("nothing replayed without a yes")
                .isEqualTo(2);

        browser.findElement(By.id("replay-all")).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();

        wait.until(d -> d.findElement(By.id("message")).getText().startsWith("Replayed 2 dead letters"));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/bulk-page").stream()
                                .filter(r -> r.status() == 200)
                                .count()
                        == 2);
        assertThat(openDeadLetters("parcel.lost")).isZero();
    }

    @Test
    void operatorSeesEachEndpointsHealthAndControls() {
        API.admin(
                "POST",
                "/admin/endpoints",
                Map.of(
                        "name",
                        "health-page",
                        "url",
                        RECEIVER.url("/health-page"),
                        "eventTypes",
                        List.of("invoice.*"),
                        "rateLimit",
                        20,
                        "maxInFlight",
                        4,
                        "ordered",
                        true));
        API.admin(
                "POST",
                "/admin/endpoints",
                Map.of(
                        "name",
                        "to-kafka",
                        "url",
                        "kafka://127.0.0.1:9092",
                        "eventTypes",
                        List.of("never.*"),
                        "destination",
                        Map.of("type", "kafka", "topic", "invoices")));
        API.enqueue("invoice.paid", "invoice", "9", Map.of("amount", 3));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/health-page").size() == 1);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> API.adminGet("/admin/endpoints").findValues("health").stream()
                        .anyMatch(h -> h.path("attemptsLastHour").asInt() == 1
                                && h.path("lastSuccessAt").isTextual()));

        openPageWithToken();
        // The page loads once on its own (the token is remembered) and again on the click: read fresh rows.
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        wait.ignoring(StaleElementReferenceException.class);
        String row =
                wait.until(d -> d.findElements(By.cssSelector("#endpoint-rows tr[data-name='health-page']")).stream()
                        .findFirst()
                        .map(WebElement::getText)
                        .filter(text -> text.contains("100%"))
                        .orElse(null));
        String circuit = wait.until(d ->
                d.findElements(By.cssSelector("#endpoint-rows tr[data-name='health-page'] .circuit-closed")).stream()
                        .findFirst()
                        .map(WebElement::getText)
                        .orElse(null));

        assertThat(row)
                .contains(
                        "health-page",
                        RECEIVER.url("/health-page"),
                        "closed",
                        "100% of 1",
                        "20/s (burst 20)",
                        "max 4 in flight",
                        "ordered",
                        "envelope");
        assertThat(circuit).isEqualTo("closed");
        String kafkaRow =
                wait.until(d -> d.findElements(By.cssSelector("#endpoint-rows tr[data-name='to-kafka']")).stream()
                        .findFirst()
                        .map(WebElement::getText)
                        .orElse(null));
        assertThat(kafkaRow)
                .as("where a broker endpoint delivers")
                .contains("Kafka topic invoices at kafka://127.0.0.1:9092");
    }

    /** An endpoint at {@code /<name>} of the receiver, which answers {@code status} until scripted otherwise. */
    private static void refusingEndpoint(String name, int status, String eventTypes) {
        RECEIVER.script("/" + name, TestReceiver.Reply.of(status));
        API.admin(
                "POST",
                "/admin/endpoints",
                Map.of("name", name, "url", RECEIVER.url("/" + name), "eventTypes", List.of(eventTypes)));
    }

    private static void openPageWithToken() {
        browser.get(API.url("/admin/"));
        browser.findElement(By.id("token")).clear();
        browser.findElement(By.id("token")).sendKeys(TestApp.ADMIN_TOKEN);
        browser.findElement(By.id("connect")).click();
    }

    private static int openDeadLetters() {
        return API.adminGet("/admin/dead-letters").path("items").size();
    }

    private static int openDeadLetters(String eventType) {
        return API.adminGet("/admin/dead-letters?eventType=" + eventType)
                .path("items")
                .size();
    }
}
