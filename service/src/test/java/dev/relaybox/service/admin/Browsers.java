package dev.relaybox.service.admin;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/** Browser tests need Debian's chromium and chromium-driver, which .ci/run installs. */
public final class Browsers {
    static final Path CHROMIUM = Path.of("/usr/bin/chromium");
    static final Path CHROMEDRIVER = Path.of("/usr/bin/chromedriver");

    private Browsers() {}

    static void requireChromium(Path chromium, Path chromedriver) {
        boolean present = Files.isExecutable(chromium) && Files.isExecutable(chromedriver);
        if (!present && System.getenv("CI") != null) {
            throw new IllegalStateException(
                    "install chromium and chromium-driver (apt-get install chromium chromium-driver)");
        }
        Assumptions.assumeTrue(present, "chromium and chromium-driver are not installed; skipping the browser test");
    }

    /** Ends a browser a test started, if it started one. */
    public static void quit(ChromeDriver browser) {
        if (browser != null) {
            browser.quit();
        }
    }

    /** A headless Chromium with nothing of its own going on (no sync, updates or background traffic). */
    public static ChromeDriver headlessChromium() {
        return headlessChromium("1400,1000");
    }

    /** As {@link #headlessChromium()}, with the window size ({@code width,height}) a screenshot needs. */
    public static ChromeDriver headlessChromium(String windowSize) {
        requireChromium(CHROMIUM, CHROMEDRIVER);
        ChromeOptions options = new ChromeOptions()
                .setBinary(CHROMIUM.toFile())
                .addArguments(
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-quic",
                        "--no-first-run",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--disable-dev-shm-usage",
                        "--window-size=" + windowSize);
        return new ChromeDriver(
                new ChromeDriverService.Builder()
                        .usingDriverExecutable(CHROMEDRIVER.toFile())
                        .usingAnyFreePort()
                        .build(),
                options);
    }
}
