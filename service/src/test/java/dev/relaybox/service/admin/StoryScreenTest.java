package dev.relaybox.service.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * What the admin page's story says, in Chromium, for the states whose words once misled: an inbound event applied
 * after it waited, a dead letter replayed and delivered, and a delivery held by its endpoint's open circuit.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class StoryScreenTest {
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ConfigOverride.config("delivery.retryDelays", "1s,1s,1s"),
            ConfigOverride.config("delivery.jitter", "0"),
            ConfigOverride.config("delivery.circuitBreaker.failureThreshold", "3"),
            // No probe while a test reads the held delivery: a failed probe would spend its last attempt.
            ConfigOverride.config("delivery.circuitBreaker.probeInterval", "1h"));
    static final Api API = new Api(APP);
    static final String RUN = Long.toString(System.nanoTime());

    ChromeDriver browser;

    @BeforeEach
    void openTheAdminPage() {
        browser = Browsers.headlessChromium("1400,1100");
        browser.get(API.url("/admin/"));
        browser.findElement(By.id("token")).sendKeys(TestApp.ADMIN_TOKEN);
    }

    @AfterEach
    void closeTheBrowser() {
        browser.quit();
    }

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void anInboundEventAppliedAfterItWaitedSaysSoInThePast() {
        String order = "W-" + RUN;
        assertThat(API.shopWebhook("evt-paid-" + order, "order.paid", order).status())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> API.adminGet("/admin/inbox?status=deferred&aggregate=order:" + order)
                                .path("items")
                                .size(),
                        n -> n == 1);
        assertThat(API.shopWebhook("evt-created-" + order, "order.created", order)
                        .status())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> API.producer("GET", "/entities/order/" + order, null)
                                .text("state"),
                        "paid"::equals);

        List<WebElement> steps = story("evt-paid-" + order, 3);

        WebElement paid = steps.stream()
                .filter(step -> step.getText().contains("order.paid"))
                .findFirst()
                .orElseThrow();
        assertThat(paid.getText())
                .contains("decision: applied", "after waiting (waiting for order.created")
                .doesNotContain("deferred:");
    }

    @Test
    void aReplayedDeadLetterCountsEveryAttemptAndEndsDelivered() {
        endpoint("replayed", "/refused", "invoice.*");
        RECEIVER.script("/refused", TestReceiver.Reply.of(400));
        String invoice = "I-" + RUN;
        API.enqueue("invoice.paid", "invoice", invoice, Map.of("invoice", invoice));
        JsonNode deadLetter = await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> API.adminGet("/admin/dead-letters?aggregate=invoice:" + invoice)
                                .path("items")
                                .get(0),
                        found -> found != null);
        RECEIVER.script("/refused", TestReceiver.Reply.of(200));
        assertThat(API.admin(
                                "POST",
                                "/admin/dead-letters/" + deadLetter.path("id").asText() + "/replay",
                                Map.of("by", "on-call"))
                        .status())
                .isEqualTo(200);
        awaitStory("invoice:" + invoice, "delivered to its endpoint");

        WebElement outbound = story("invoice:" + invoice, 1).get(0);

        assertThat(outbound.getText())
                .contains("delivered to its endpoint", "replayed", "after 2 attempts", "400", "200")
                .doesNotContain("0 attempt", "dead-lettered after");
    }

    @Test
    void aDeliveryHeldByAnOpenCircuitSaysSoAndNoNextAttemptInThePast() {
        String endpoint = endpoint("tripped", "/down", "refund.*");
        RECEIVER.script("/down", TestReceiver.Reply.of(503));
        String refund = "R-" + RUN;
        API.enqueue("refund.issued", "refund", refund, Map.of("refund", refund));
        await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> API.adminGet("/admin/endpoints/" + endpoint)
                                .path("health")
                                .path("circuit")
                                .asText(),
                        "open"::equals);
        awaitStory("refund:" + refund, "waiting for its endpoint's circuit");

        WebElement outbound = story("refund:" + refund, 1).get(0);

        assertThat(outbound.getText())
                .contains("tripped", "waiting for its endpoint's circuit to close", "503")
                .doesNotContain("next attempt", "dead-lettered");
    }

    private static String endpoint(String name, String path, String eventTypes) {
        return API.endpoint(name, RECEIVER.url(path), eventTypes);
    }

    /** Until the story's first outbound step (the API the page reads) has come to this. */
    private static void awaitStory(String query, String words) {
        await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> API.adminGet("/admin/story?q=" + query)
                                .path("outbox")
                                .path(0)
                                .toString(),
                        text -> text.contains(words));
    }

    /** Finds a story in the admin page as an operator does, and waits for its steps. */
    private List<WebElement> story(String query, int steps) {
        browser.findElement(By.id("find-q")).clear();
        browser.findElement(By.id("find-q")).sendKeys(query);
        browser.findElement(By.id("find-go")).click();
        return new WebDriverWait(browser, Duration.ofSeconds(20)).until(d -> {
            List<WebElement> found = d.findElements(By.cssSelector("#story-steps > li"));
            return found.size() == steps ? found : null;
        });
    }
}
