package dev.relaybox.service.admin;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/** Browser tests need Debian's chromium and chromium-driver, which .ci/run installs. */
final class Browsers {
    private Browsers() {}

    static void requireChromium(Path chromium, Path chromedriver) {
        boolean present = Files.isExecutable(chromium) && Files.isExecutable(chromedriver);
        if (!present && System.getenv("CI") != null) {
            throw new IllegalStateException("install chromium and chromium-driver (apt-get install chromium chromium-driver)");
        }
        Assumptions.assumeTrue(present, "chromium and chromium-driver are not installed; skipping the browser test");
    }
}
