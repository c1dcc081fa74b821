package dev.relaybox.service.tenants;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import dev.relaybox.service.admin.Browsers;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
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
 * The portal in a real headless Chromium, opened with a link alone: a customer adds an endpoint and copies its
 * secret, sends a test event, sees the delivery and its attempt, resends it, rotates the secret and sees the chart.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class PortalBrowserTest {
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(TestApp.freePort());
    static final Api API = new Api(APP);

    static ChromeDriver browser;

    @BeforeAll
    static void startBrowser() {
        browser = Browsers.headlessChromium("1200,1400");
    }

    @AfterAll
    static void stopBrowser() {
        if (browser != null) {
            browser.quit();
        }
        RECEIVER.close();
    }

    @Test
    void aCustomerManagesItsEndpointThroughTheLinkAlone() throws Exception {
        API.admin(
                "POST",
                "/admin/tenants",
                Map.of("key", "acme", "name", "Acme Inc.", "theme", Map.of("title", "Acme webhooks")));
        String token =
                API.admin("POST", "/admin/tenants/acme/portal-access", Map.of()).text("token");
        browser.get(API.url("/portal#token=" + token));
        WebDriverWait wait = new WebDriverWait(browser, Duration.ofSeconds(20));
        wait.ignoring(StaleElementReferenceException.class);
        wait.until(d -> d.findElement(By.id("tenant")).getText().equals("Acme Inc."));
        assertThat(browser.findElement(By.id("title")).getText()).isEqualTo("Acme webhooks");
        assertThat(browser.getCurrentUrl())
                .as("the token leaves the address bar")
                .doesNotContain(token);

        browser.findElement(By.id("new-name")).sendKeys("billing");
        browser.findElement(By.id("new-url")).sendKeys(RECEIVER.url("/acme"));
        browser.findElement(By.id("new-create")).click();
        WebElement secret = wait.until(ExpectedConditions.visibilityOfElementLocated(By.id("secret-value")));
        String firstSecret = secret.getText();
        assertThat(firstSecret).startsWith("whsec_");
        assertThat(API.adminGet("/admin/tenants/acme/endpoints")
                        .get(0)
                        .path("url")
                        .asText())
                .isEqualTo(RECEIVER.url("/acme"));

        card().findElement(By.xpath(".//button[text()='Send test event']")).click();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/acme").size() == 1);
        assertThat(RECEIVER.received("/acme").get(0).json().path("type").asText())
                .isEqualTo("relaybox.test");

        WebElement row = wait.until(d -> {
            d.findElement(By.id("refresh")).click();
            return d.findElements(By.cssSelector("#deliveries tr[data-id]")).stream()
                    .filter(r -> r.getText().contains("DELIVERED"))
                    .findFirst()
                    .orElse(null);
        });
        assertThat(row.getText()).contains("relaybox.test", "billing");
        row.findElement(By.xpath(".//button[text()='Details']")).click();
        wait.until(d -> d.findElements(By.cssSelector("#attempts tr")).size() == 1);
        assertThat(browser.findElement(By.id("attempts")).getText()).contains("200");
        assertThat(browser.findElement(By.id("payload")).getText()).contains("a test event from Relaybox");
        Files.createDirectories(Path.of("target"));
        Files.write(Path.of("target/portal-delivery.png"), browser.getScreenshotAs(OutputType.BYTES));

        browser.findElement(By.id("resend")).click();
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/acme").size() == 2);
        assertThat(RECEIVER.received("/acme").get(1).header("webhook-id"))
                .as("a resend is the same message")
                .isEqualTo(RECEIVER.received("/acme").get(0).header("webhook-id"));

        card().findElement(By.xpath(".//button[text()='Rotate secret']")).click();
        wait.until(ExpectedConditions.alertIsPresent()).accept();
        wait.until(d -> !d.findElement(By.id("secret-value")).getText().equals(firstSecret));
        assertThat(browser.findElement(By.id("secret-value")).getText()).startsWith("whsec_");

        browser.navigate().refresh();
        wait.until(d -> card().findElements(By.cssSelector("svg.chart")).stream()
                .anyMatch(chart -> chart.getAttribute("aria-label").contains("2 delivered, 0 failed")));
        Files.write(Path.of("target/portal-endpoints.png"), browser.getScreenshotAs(OutputType.BYTES));
    }

    @Test
    void thePageRunsOnlyItsOwnScriptsAndNoOtherSiteMayFrameIt() {
        for (String path : new String[] {"/portal", "/portal/portal.js", "/portal/chart.js", "/portal/portal.css"}) {
            try (var response = API.request(path, null).get()) {
                assertThat(response.getStatus()).as(path).isEqualTo(200);
                assertThat(response.getHeaderString("Content-Security-Policy"))
                        .as(path)
                        .contains("default-src 'self'", "frame-ancestors 'none'");
                assertThat(response.getHeaderString("X-Content-Type-Options")).isEqualTo("nosniff");
            }
        }
    }

    private static WebElement card() {
        return new WebDriverWait(browser, Duration.ofSeconds(20))
                .until(d -> d.findElements(By.cssSelector("#endpoints .endpoint")).stream()
                        .findFirst()
                        .orElse(null));
    }
}
