package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.service.temporal.TemporalDevServer;
import io.dropwizard.core.cli.Cli;
import io.dropwizard.core.setup.Bootstrap;
import io.dropwizard.util.JarLocation;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@code relaybox temporal setup} against the real Temporal server, as an operator runs it. */
class TemporalSetupCommandTest {
    private static int port;
    private static TemporalDevServer temporal;

    @BeforeAll
    static void startTemporal() {
        temporal = RealTemporal.start("setup-command");
        port = temporal.port();
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
    void createsTheNamespaceAndSearchAttributesOnceThenReportsThemAsExisting() {
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
                .contains("namespace setup-test (retention PT168H): created")
                .contains("(8 created, 0 already existed)");
        assertThat(second.failure()).isEmpty();
        assertThat(second.stdout())
                .contains("search attribute RelayDirection (Keyword): already existed")
                .contains("search attribute RelayAttempts (Int): already existed")
                .contains("namespace setup-test: already existed")
                .contains("(0 created, 8 already existed)")
                .doesNotContain(": created");
    }

    @Test
    void waitsForAFrontendThatAcceptsConnectionsButDoesNotAnswerYet() throws Exception {
        // A loaded or starting server: the connection is accepted, the first call outlives its deadline.
        try (StallingFront front = new StallingFront(port, Duration.ofSeconds(8))) {
            System.setProperty("dw.temporal.address", "127.0.0.1:" + front.port());
            System.setProperty("dw.temporal.namespace", "default");

            Run run = run("temporal", "setup", "--wait", "1m", TestApp.CONFIG);

            assertThat(run.failure()).isEmpty();
            assertThat(run.stdout()).contains("namespace default: already existed");
        }
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

    /** Accepts connections at once but passes nothing on, either way, until {@code stall} has passed. */
    private static final class StallingFront implements AutoCloseable {
        private final ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        private final List<Socket> open = new CopyOnWriteArrayList<>();

        StallingFront(int target, Duration stall) throws IOException {
            Instant opensAt = Instant.now().plus(stall);
            daemon(() -> {
                while (!listener.isClosed()) {
                    try {
                        Socket client = listener.accept();
                        Socket server = new Socket(InetAddress.getLoopbackAddress(), target);
                        open.addAll(List.of(client, server));
                        daemon(() -> pipe(client, server, opensAt));
                        daemon(() -> pipe(server, client, opensAt));
                    } catch (IOException e) {
                        return;
                    }
                }
            });
        }

        int port() {
            return listener.getLocalPort();
        }

        private static void daemon(Runnable task) {
            Thread thread = new Thread(task, "stalling-front");
            thread.setDaemon(true);
            thread.start();
        }

        private static void pipe(Socket from, Socket to, Instant opensAt) {
            try {
                Thread.sleep(
                        Math.max(0, Duration.between(Instant.now(), opensAt).toMillis()));
                from.getInputStream().transferTo(to.getOutputStream());
            } catch (IOException | InterruptedException e) {
                // the other side closed
            }
        }

        @Override
        public void close() throws IOException {
            listener.close();
            for (Socket socket : open) {
                socket.close();
            }
        }
    }

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
