package dev.relaybox.service.tenants;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.outbound.StandardWebhooksVerifier;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import dev.relaybox.service.admin.Browsers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
import org.openqa.selenium.support.ui.ExpectedConditions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * The customer portal in a real headless Chromium, opened through the link the operator asks for: the tenant's
 * customer adds an endpoint, copies its secret, sends a test event, sees the delivery and its attempt, resends it and
 * sees the second attempt, rotates the secret, and sees the deliveries in the endpoint's chart (the admin page's
 * too). Every request the receiver got is checked against the secret the page showed. Screenshots go to
 * {@code target/portal/} (docs/portal.md shows copies from {@code docs/images/}).
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class PortalBrowserTest {
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension();
    static final Api API = new Api(APP);
    static final String PATH = "/acme-billing";

    static ChromeDriver browser;
    static WebDriverWait wait;

    @BeforeAll
    static void tenantWithAPublishedEventType() {
        browser = Browsers.headlessChromium("1280,1000");
        wait = new WebDriverWait(browser, Duration.ofSeconds(40));
        wait.ignoring(StaleElementReferenceException.class);
        RECEIVER.answer(request -> new TestReceiver.Reply(200, Map.of(), "{\"received\": true}", Duration.ZERO));
        assertThat(API.admin(
                                "POST",
                                "/admin/tenants",
                                Map.of(
                                        "key",
                                        "acme",
                                        "name",
                                        "Acme Corp",
                                        "theme",
                                        Map.of("title", "Acme webhooks", "accentColor", "#7c3aed")))
                        .status())
                .isEqualTo(201);
        for (String type : List.of("invoice.paid", "invoice.refunded")) {
            assertThat(API.admin(
                                    "POST",
                                    "/admin/event-types",
                                    Map.of(
                                            "name",
                                            type,
                                            "description",
                                            "An invoice was " + type.substring(8),
                                            "schema",
                                            Map.of("type", "object")))
                            .status())
                    .isEqualTo(201);
        }
    }

    @AfterAll
    static void stopBrowser() {
        Browsers.quit(browser);
        RECEIVER.close();
    }

    @Test
    void customerAddsAnEndpointSeesATestDeliveryResendsItAndRotatesTheSecret() throws Exception {
        open(portalLink());
        wait.until(ExpectedConditions.textToBe(By.id("title"), "Acme webhooks"));
        assertThat(browser.getCurrentUrl())
                .as("the token leaves the address bar")
                .doesNotContain("token");
        assertThat(browser.findElement(By.id("tenant-name")).getText()).isEqualTo("Acme Corp");
        wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("endpoints-empty")));

        wait.until(ExpectedConditions.elementToBeClickable(By.id("add-endpoint")))
                .click();
        browser.findElement(By.id("form-name")).sendKeys("billing");
        browser.findElement(By.id("form-url")).sendKeys(RECEIVER.url(PATH));
        browser.findElement(By.id("form-all-types")).click();
        browser.findElement(By.cssSelector("#form-types input[value='invoice.paid']"))
                .click();
        browser.findElement(By.id("form-inflight")).sendKeys("4");
        browser.findElement(By.id("form-save")).click();
        String secret = shownSecret();
        browser.findElement(By.id("secret-copy")).click();
        wait.until(ExpectedConditions.textToBe(By.id("message"), "Copied the signing secret to the clipboard."));
        browser.findElement(By.id("secret-done")).click();
        assertThat(endpointText()).contains("billing", RECEIVER.url(PATH), "invoice.paid", "at most 4 in flight");
        assertThat(API.adminGet("/admin/tenants/acme/endpoints").findValuesAsText("url"))
                .as("the endpoint is the tenant's")
                .containsExactly(RECEIVER.url(PATH));

        endpointButton("Send test event").click();
        wait.until(d -> d.findElement(By.id("message")).getText().startsWith("Test event to billing: DELIVERED"));
        TestReceiver.Received first = RECEIVER.received(PATH).get(0);
        assertThat(signedWith(secret, first)).isTrue();
        assertThat(first.json().path("type").asText()).isEqualTo("relaybox.test");

        WebElement row = wait.until(d -> d.findElements(By.cssSelector("#log-rows tr[data-id]")).stream()
                .findFirst()
                .orElse(null));
        assertThat(row.getText()).contains("relaybox.test", "billing", "DELIVERED", "200");
        row.findElement(By.xpath(".//button[text()='Details']")).click();
        wait.until(d -> attempts().size() == 1);
        // The receiver is on loopback, where the development setup lets tenants deliver, but a tenant reads replies
        // from public addresses only: the status, never what answered.
        assertThat(attempts().get(0)).contains("200").doesNotContain("received");
        assertThat(browser.findElement(By.id("delivery-payload")).getText()).contains("a test event from Relaybox");

        browser.findElement(By.id("delivery-resend")).click();
        wait.until(d -> d.findElement(By.id("message")).getText().startsWith("Resent: DELIVERED (200)"));
        wait.until(d -> attempts().size() == 2);
        assertThat(attempts().get(1))
                .startsWith("2 ")
                .contains("200", "a new schedule: the delivery was replayed or resent");
        TestReceiver.Received again = RECEIVER.received(PATH).get(1);
        assertThat(again.header("webhook-id")).isEqualTo(first.header("webhook-id"));
        assertThat(signedWith(secret, again)).isTrue();
        screenshot("portal-delivery.png");

        endpointButton("Rotate secret").click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        String rotated = shownSecret();
        assertThat(rotated).isNotEqualTo(secret);
        wait.until(d -> d.findElement(By.id("message")).getText().startsWith("Rotated the secret of billing"));
        browser.findElement(By.id("secret-done")).click();
        endpointButton("Send test event").click();
        wait.until(d -> d.findElement(By.id("message")).getText().startsWith("Test event to billing: DELIVERED"));
        TestReceiver.Received afterRotation = RECEIVER.received(PATH).get(2);
        assertThat(signedWith(rotated, afterRotation)).isTrue();
        assertThat(signedWith(secret, afterRotation))
                .as("the old secret signs too during rotation")
                .isTrue();

        WebElement chart = wait.until(d -> d.findElements(By.cssSelector(".endpoint[data-name='billing'] svg")).stream()
                .filter(svg -> "3".equals(svg.getAttribute("data-delivered")))
                .findFirst()
                .orElse(null));
        assertThat(chart.getAttribute("aria-label")).isEqualTo("billing: 3 delivered, 0 failed in the last 24 hours");
        assertThat(chart.findElements(By.cssSelector("rect.delivered"))).isNotEmpty();
        assertThat(chart.findElements(By.cssSelector("rect.failed"))).isEmpty();
        browser.executeScript("window.scrollTo(0, 0)");
        screenshot("portal-endpoints.png");

        endpointButton("Edit").click();
        WebElement rate = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("form-rate")));
        rate.sendKeys("5");
        browser.findElement(By.cssSelector("#form-types input[value='invoice.refunded']"))
                .click();
        browser.findElement(By.id("form-save")).click();
        wait.until(d -> endpointText().contains("5 requests/s"));
        assertThat(endpointText()).contains("invoice.paid, invoice.refunded", "at most 4 in flight");
        endpointButton("Disable").click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(d -> endpointText().contains("Disabled: disabled in the portal"));
        endpointButton("Enable").click();
        wait.until(d -> d.findElement(By.id("message")).getText().equals("Enabled billing."));
        assertThat(API.adminGet("/admin/tenants/acme/endpoints")
                        .get(0)
                        .path("enabled")
                        .asBoolean())
                .isTrue();
        endpointButton("Replay failures…").click();
        wait.until(ExpectedConditions.elementToBeClickable(By.id("recover-go"))).click();
        wait.until(
                d -> d.findElement(By.id("message")).getText().startsWith("Replaying 0 failed message(s) to billing"));

        open(API.url("/admin/"));
        browser.findElement(By.id("token")).sendKeys(TestApp.ADMIN_TOKEN);
        browser.findElement(By.id("connect")).click();
        WebElement adminChart = wait.until(ExpectedConditions.presenceOfElementLocated(
                By.cssSelector("#endpoint-rows tr[data-name='billing'] svg[data-delivered='3']")));
        assertThat(adminChart.getAttribute("aria-label"))
                .isEqualTo("billing: 3 delivered, 0 failed in the last 24 hours");
    }

    @Test
    void anExpiredOrMissingLinkSaysHowToComeBack() {
        open(API.url("/portal"));
        browser.executeScript("sessionStorage.clear()");
        open(API.url("/portal#token=rbp_not-a-real-token"));
        wait.until(d -> d.findElement(By.id("message")).getText().startsWith("This link has expired"));
        assertThat(browser.findElement(By.id("message")).getText())
                .isEqualTo("This link has expired; open the portal again from your app.");
        assertThat(browser.findElement(By.id("add-endpoint")).isEnabled())
                .as("nothing can be added without a link that works")
                .isFalse();
    }

    /** The operator's link, opened at this test's port: the configured public address is another machine's. */
    private static String portalLink() {
        Answer access = API.admin("POST", "/admin/tenants/acme/portal-access", Map.of());
        assertThat(access.status()).isEqualTo(201);
        URI url = URI.create(access.text("url"));
        assertThat(url.getRawFragment()).isEqualTo("token=" + access.text("token"));
        return API.url(url.getRawPath() + "#" + url.getRawFragment());
    }

    /** A fresh load even where only the fragment differs from the page shown (which would not reload it). */
    private static void open(String url) {
        browser.get("about:blank");
        browser.get(url);
    }

    private static String shownSecret() {
        WebElement value = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("secret-value")));
        wait.until(d -> value.getAttribute("value").startsWith("whsec_"));
        return value.getAttribute("value");
    }

    private static String endpointText() {
        return wait.until(d -> d.findElement(By.cssSelector(".endpoint[data-name='billing']")))
                .getText();
    }

    private static WebElement endpointButton(String label) {
        return wait.until(ExpectedConditions.elementToBeClickable(
                By.xpath("//div[@data-name='billing']//button[text()='" + label + "']")));
    }

    private static List<String> attempts() {
        return browser.findElements(By.cssSelector("#attempt-rows tr[data-attempt]")).stream()
                .map(WebElement::getText)
                .toList();
    }

    private static boolean signedWith(String secret, TestReceiver.Received request) throws Exception {
        return StandardWebhooksVerifier.verify(
                secret,
                request.header("webhook-id"),
                request.header("webhook-timestamp"),
                request.body(),
                request.header("webhook-signature"));
    }

    private static void screenshot(String name) throws Exception {
        Files.createDirectories(Path.of("target", "portal"));
        Files.write(Path.of("target", "portal", name), browser.getScreenshotAs(OutputType.BYTES));
    }
}
