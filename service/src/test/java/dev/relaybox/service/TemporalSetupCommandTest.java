package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;

import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.util.JarLocation;
import io.temporal.testserver.TestServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code relaybox temporal setup} against the SDK's standalone Temporal server, as an operator runs it. */
class TemporalSetupCommandTest {
    private static int port;
    private static TestServer.PortBoundTestServer temporal;

    @BeforeAll
    static void startTemporal() {
        port = TestApp.freePort();
        temporal = TestServer.createPortBoundServer(port, true);
    }

    @AfterAll
    static void stopTemporal() {
        temporal.close();
    }

    @AfterEach
    void forgetOverrides() {
        System.clearProperty("dw.temporal.address");
        System.clearProperty("dw.temporal.namespace");
    }

    @Test
    void registersTheSearchAttributesOnceThenReportsThemAsExisting() {
        System.setProperty("dw.temporal.address", "127.0.0.1:" + port);
        System.setProperty("dw.temporal.namespace", "setup-test");

        Run first = run("temporal", "setup", "--retention", "7d", TestApp.CONFIG);
        Run second = run("temporal", "setup", TestApp.CONFIG);

        assertThat(first.failure()).isEmpty();
        assertThat(first.stdout())
                .contains("search attribute RelayDirection (Keyword): created")
                .contains("search attribute RelayStatus (Keyword): created")
                .contains("search attribute RelayEventType (Keyword): created")
                .contains("search attribute RelayAggregate (Keyword): created")
                .contains("search attribute RelayPeer (Keyword): created")
                .contains("search attribute RelayAttempts (Int): created")
                .contains("search attribute RelayEndpoints (KeywordList): created")
                // The test server treats every namespace as registered.
                .contains("namespace setup-test: already existed")
                .contains("(7 created, 1 already existed)");
        assertThat(second.failure()).isEmpty();
        assertThat(second.stdout())
                .contains("search attribute RelayDirection (Keyword): already existed")
                .contains("search attribute RelayAttempts (Int): already existed")
                .contains("(0 created, 8 already existed)")
                .doesNotContain(": created");
    }

    @Test
    void refusesTheEmbeddedAddressNamingTheVariableToSet() {
        Run run = run("temporal", "setup", TestApp.CONFIG);

        assertThat(run.failure()).isPresent();
        assertThat(run.failure().get()).hasMessageContaining("TEMPORAL_ADDRESS");
    }

    @Test
    void refusesARetentionThatIsNotADuration() {
        System.setProperty("dw.temporal.address", "127.0.0.1:" + port);

        Run run = run("temporal", "setup", "--retention", "forever", TestApp.CONFIG);

        assertThat(run.failure()).isPresent();
        assertThat(run.failure().get()).hasMessageContaining("--retention forever");
    }

    private record Run(Optional<Throwable> failure, String stdout) {}

    private static Run run(String... args) {
        RelayboxApplication application = new RelayboxApplication();
        Bootstrap<RelayboxConfiguration> bootstrap = new Bootstrap<>(application);
        application.initialize(bootstrap);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrintStream original = System.out;
        System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
        try {
            Optional<Throwable> failure = new Cli(
                            new JarLocation(RelayboxApplication.class), bootstrap, out, new ByteArrayOutputStream())
                    .run(args);
            return new Run(failure, out.toString(StandardCharsets.UTF_8));
        } finally {
            System.setOut(original);
        }
    }
}
