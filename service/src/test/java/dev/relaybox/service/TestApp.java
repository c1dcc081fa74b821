package dev.relaybox.service;

import dev.relaybox.activities.TestEngine;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/** Boots the real application from the top-level config.yml in embedded mode, on free ports and a fresh data directory. */
public final class TestApp {
    public static final String ADMIN_TOKEN = "dev-admin-token";
    public static final String PRODUCER_TOKEN = "dev-producer-token";
    static final String CONFIG = Path.of("..", "config.yml").toAbsolutePath().toString();
    private static final int FIRST_PORT = 20_000;
    private static final int PORT_COUNT = 12_000;
    private static final SecureRandom PORTS = new SecureRandom();

    private TestApp() {}

    static Path freshDataDirectory() {
        return ScratchDirectories.create("relaybox-test-pg");
    }

    /**
     * A port nothing listens on now, for a server a test starts later. Drawn from below the kernel's ephemeral range
     * (32768 and up), which every server bound to port 0 takes its ports from — a Temporal dev server binds several
     * such ports at once — so none of them can take this one before the test binds it.
     */
    public static int freePort() {
        for (int attempt = 0; attempt < 1000; attempt++) {
            int port = FIRST_PORT + PORTS.nextInt(PORT_COUNT);
            try (ServerSocket socket = new ServerSocket(port)) {
                return socket.getLocalPort();
            } catch (IOException taken) {
                // another process has it: draw again
            }
        }
        throw new UncheckedIOException(
                new IOException("no free port in " + FIRST_PORT + ".." + (FIRST_PORT + PORT_COUNT)));
    }

    static ConfigOverride[] overrides(Path dataDirectory, int temporalPort, ConfigOverride... extra) {
        return overrides(dataDirectory, temporalPort, false, extra);
    }

    /** Overrides of one key are a set, not a sequence: the durability setting is chosen here, once. */
    static ConfigOverride[] overrides(Path dataDirectory, int temporalPort, boolean durable, ConfigOverride... extra) {
        return overrides(dataDirectory, temporalPort, durable, "in-process", extra);
    }

    /**
     * The engine is chosen here, once, too. The suite runs on the in-process engine: it starts in a fraction of the
     * dev server's time and several tests rely on its forgetting at a restart; the dev server has its own tests.
     */
    private static ConfigOverride[] overrides(
            Path dataDirectory, int temporalPort, boolean durable, String engine, ConfigOverride... extra) {
        List<ConfigOverride> all = new ArrayList<>(List.of(
                ConfigOverride.config("temporal.embeddedEngine", engine),
                ConfigOverride.config("server.applicationConnectors[0].port", "0"),
                ConfigOverride.config("server.adminConnectors[0].port", "0"),
                ConfigOverride.config("embeddedPostgres.dataDirectory", dataDirectory.toString()),
                ConfigOverride.config("embeddedPostgres.port", "0"),
                // Test data is thrown away: skip the fsyncs, except where durability is what is tested.
                ConfigOverride.config("embeddedPostgres.durable", Boolean.toString(durable)),
                ConfigOverride.config("temporal.embeddedPort", Integer.toString(temporalPort)),
                // As TestEngine's workers: a build machine's loaded CPUs are no deadlock.
                ConfigOverride.config(
                        "temporal.deadlockDetectionTimeout",
                        TestEngine.WORKER_OPTIONS.getDefaultDeadlockDetectionTimeout() + "ms"),
                ConfigOverride.config("logging.level", "WARN")));
        all.addAll(List.of(extra));
        return all.toArray(ConfigOverride[]::new);
    }

    /** The application on the in-process engine, which binds a free port of its own and tells it to no one else. */
    public static DropwizardAppExtension<RelayboxConfiguration> extension(ConfigOverride... extra) {
        return extension(0, extra);
    }

    /** The same on {@code temporalPort}, for a test that reaches the engine itself. */
    public static DropwizardAppExtension<RelayboxConfiguration> extension(int temporalPort, ConfigOverride... extra) {
        return new DropwizardAppExtension<>(
                RelayboxApplication.class, CONFIG, overrides(freshDataDirectory(), temporalPort, extra));
    }

    static DropwizardTestSupport<RelayboxConfiguration> support(
            Path dataDirectory, int temporalPort, ConfigOverride... extra) {
        return new DropwizardTestSupport<>(
                RelayboxApplication.class, CONFIG, overrides(dataDirectory, temporalPort, extra));
    }

    /**
     * The application on the Temporal CLI's dev server as embedded mode runs it where the CLI is installed; its state
     * in {@code temporalDirectory}.
     */
    static DropwizardTestSupport<RelayboxConfiguration> devServerSupport(
            Path dataDirectory, Path temporalDirectory, int temporalPort, ConfigOverride... extra) {
        List<ConfigOverride> all = new ArrayList<>(List.of(extra));
        all.add(ConfigOverride.config("temporal.embeddedDataDirectory", temporalDirectory.toString()));
        return new DropwizardTestSupport<>(
                RelayboxApplication.class,
                CONFIG,
                overrides(dataDirectory, temporalPort, false, "dev-server", all.toArray(ConfigOverride[]::new)));
    }

    /** The application with embedded PostgreSQL as shipped: fsync and synchronous commit on. */
    static DropwizardTestSupport<RelayboxConfiguration> durableSupport(
            Path dataDirectory, int temporalPort, ConfigOverride... extra) {
        return new DropwizardTestSupport<>(
                RelayboxApplication.class, CONFIG, overrides(dataDirectory, temporalPort, true, extra));
    }
}
