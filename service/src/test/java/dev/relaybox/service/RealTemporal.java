package dev.relaybox.service;

import dev.relaybox.service.temporal.TemporalCli;
import dev.relaybox.service.temporal.TemporalDevServer;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;

/**
 * The real Temporal server for tests: {@code temporal server start-dev} in its own process on free loopback ports,
 * in-memory state and no UI unless asked, its log under {@code target/temporal-dev/}. Skips the calling test when
 * the Temporal CLI is not installed on a developer's machine; on CI ({@code CI=true}) that fails instead.
 */
public final class RealTemporal {
    private RealTemporal() {}

    public static Path cli() {
        return TemporalCli.find(System.getenv()).orElseGet(() -> {
            String why = "the Temporal CLI was not found (" + TemporalCli.HOW_TO_INSTALL + "; .ci/run installs it)";
            if ("true".equalsIgnoreCase(System.getenv("CI"))) {
                Assertions.fail(why);
            }
            Assumptions.abort("skipping a test on the real Temporal server: " + why);
            throw new AssertionError(why);
        });
    }

    public static TemporalDevServer start(String name) {
        return start(name, UnaryOperator.identity());
    }

    /** Starts one whose options {@code adjust} changes: a UI port, a database file, a lowered limit. */
    public static TemporalDevServer start(String name, UnaryOperator<TemporalDevServer.Options> adjust) {
        Path log = Path.of("target", "temporal-dev", name + "-" + System.nanoTime() + ".log")
                .toAbsolutePath();
        TemporalDevServer.Options options =
                adjust.apply(TemporalDevServer.Options.inMemory(cli(), TestApp.freePort(), log));
        return TemporalDevServer.start(options, Duration.ofMinutes(1));
    }
}
