package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.config.TemporalConnection;
import dev.relaybox.service.temporal.EmbeddedDevServer;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.temporal.api.enums.v1.EventType;
import io.temporal.api.enums.v1.WorkflowExecutionStatus;
import io.temporal.api.history.v1.HistoryEvent;
import io.temporal.client.WorkflowClient;
import io.temporal.serviceclient.WorkflowServiceStubs;
import java.net.InetAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * Embedded mode on the Temporal CLI's dev server: the real Temporal server as a child process, its state on disk
 * beside the database, its UI on loopback.
 */
class EmbeddedDevServerTest {
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void theTemporalUiAndFrontendListenOnLoopbackOnlyNoEndpointReachesThemAndAdminLinksGoToTheUi() throws Exception {
        RealTemporal.cli();
        Assumptions.assumeTrue(ListeningSockets.available(), "needs /proc/net/tcp");
        Path temporalDirectory = ScratchDirectories.create("relaybox-test-temporal");
        int temporalPort = TestApp.freePort();
        int uiPort = TestApp.freePort();
        DropwizardTestSupport<RelayboxConfiguration> app = TestApp.devServerSupport(
                TestApp.freshDataDirectory(),
                temporalDirectory,
                temporalPort,
                ConfigOverride.config("temporal.embeddedUiPort", Integer.toString(uiPort)));
        app.before();
        try {
            HttpResponse<String> ui = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + uiPort + "/"))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(ui.statusCode()).isEqualTo(200);
            assertThat(ListeningSockets.on(uiPort)).isNotEmpty().allMatch(InetAddress::isLoopbackAddress);
            assertThat(ListeningSockets.on(temporalPort)).isNotEmpty().allMatch(InetAddress::isLoopbackAddress);
            assertThat(Files.isRegularFile(temporalDirectory.resolve(EmbeddedDevServer.DATABASE_FILE)))
                    .isTrue();
            assertThat(temporalDirectory.resolve(EmbeddedDevServer.DATABASE_FILE + "-wal"))
                    .as("the write-ahead log that the default pragmas turn on")
                    .exists();
            assertThat(EmbeddedDevServer.recordedPid(temporalDirectory)).isPresent();
            assertThat(ProcessHandle.of(
                            EmbeddedDevServer.recordedPid(temporalDirectory).orElseThrow()))
                    .hasValueSatisfying(process -> assertThat(process.isAlive()).isTrue());

            // Every port the engine opened (gRPC, UI, HTTP API, metrics, ...) is Relaybox's own: no endpoint reaches
            // it.
            long enginePid = EmbeddedDevServer.recordedPid(temporalDirectory).orElseThrow();
            assertThat(ListeningSockets.ofProcess(enginePid)).contains(uiPort, temporalPort);
            for (int enginePort : ListeningSockets.ofProcess(enginePid)) {
                Api.Answer refused = new Api(app)
                        .admin(
                                "POST",
                                "/admin/endpoints",
                                Map.of("name", "engine-" + enginePort, "url", "http://127.0.0.1:" + enginePort + "/"));
                refused.assertError(422, "url_refused");
                assertThat(refused.text("reason")).contains("Relaybox's own embedded Temporal");
            }

            String endpointId = new Api(app)
                    .admin(
                            "POST",
                            "/admin/endpoints",
                            Map.of("name", "hooks", "url", "http://127.0.0.1:9/hooks", "eventTypes", List.of("*")))
                    .text("id");
            String outboxId = new Api(app)
                    .producer(
                            "POST",
                            "/outbox",
                            Map.of(
                                    "eventType",
                                    "order.paid",
                                    "aggregateType",
                                    "order",
                                    "aggregateId",
                                    "1",
                                    "payload",
                                    Map.of()))
                    .text("id");
            assertThat(endpointId).isNotBlank();
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(new Api(app)
                                    .admin("GET", "/admin/outbox", null)
                                    .body()
                                    .toString())
                            .contains(
                                    "http://localhost:" + uiPort + "/namespaces/default/workflows/outbox-" + outboxId));
        } finally {
            app.after();
        }
        assertThat(EmbeddedDevServer.allRunning(temporalDirectory)).isEmpty();
    }

    @Test
    void aWorkflowWaitingOnItsTimerKeepsItsRunAndTimerAcrossARestart() throws Exception {
        RealTemporal.cli();
        Path data = TestApp.freshDataDirectory();
        Path temporalDirectory = ScratchDirectories.create("relaybox-test-temporal");
        int temporalPort = TestApp.freePort();
        ConfigOverride[] overrides = {
            ConfigOverride.config("temporal.embeddedUiPort", "off"),
            ConfigOverride.config("delivery.retryDelays", "20s"),
        };
        try (TestReceiver receiver = new TestReceiver()) {
            receiver.script("/hooks", TestReceiver.Reply.of(503));
            String workflowId;
            String runId;
            DropwizardTestSupport<RelayboxConfiguration> first =
                    TestApp.devServerSupport(data, temporalDirectory, temporalPort, overrides);
            first.before();
            try {
                Api api = new Api(first);
                api.admin(
                        "POST",
                        "/admin/endpoints",
                        Map.of("name", "hooks", "url", receiver.url("/hooks"), "eventTypes", List.of("*")));
                String outboxId =
                        api.enqueue("order.paid", "order", "9", Map.of()).text("id");
                workflowId = "outbox-" + outboxId;
                await().atMost(Duration.ofSeconds(30)).until(() -> "RETRYING".equals(deliveryStatus(first)));
                await().atMost(Duration.ofSeconds(10))
                        .until(() -> history(temporalPort, workflowId).contains(EventType.EVENT_TYPE_TIMER_STARTED));
                runId = onTemporal(
                        temporalPort,
                        client -> client.newUntypedWorkflowStub(workflowId)
                                .describe()
                                .getExecution()
                                .getRunId());
            } finally {
                first.after();
            }
            receiver.script("/hooks", TestReceiver.Reply.of(200));

            DropwizardTestSupport<RelayboxConfiguration> second =
                    TestApp.devServerSupport(data, temporalDirectory, temporalPort, overrides);
            second.before();
            try {
                await().atMost(Duration.ofSeconds(90)).until(() -> "DELIVERED".equals(deliveryStatus(second)));
                assertThat(receiver.received("/hooks")).hasSize(2);
                // The run from before the restart finished the delivery: nothing was re-driven from the rows.
                await().atMost(Duration.ofSeconds(30))
                        .until(() -> onTemporal(
                                        temporalPort,
                                        client -> client.newUntypedWorkflowStub(workflowId)
                                                .describe()
                                                .getStatus())
                                == WorkflowExecutionStatus.WORKFLOW_EXECUTION_STATUS_COMPLETED);
                String finishedRun = onTemporal(
                        temporalPort,
                        client -> client.newUntypedWorkflowStub(workflowId)
                                .describe()
                                .getExecution()
                                .getRunId());
                assertThat(finishedRun).isEqualTo(runId);
                assertThat(history(temporalPort, workflowId))
                        .containsSubsequence(EventType.EVENT_TYPE_TIMER_STARTED, EventType.EVENT_TYPE_TIMER_FIRED);
            } finally {
                second.after();
            }
        }
    }

    private static List<EventType> history(int temporalPort, String workflowId) {
        return onTemporal(
                temporalPort,
                client -> client.fetchHistory(workflowId).getEvents().stream()
                        .map(HistoryEvent::getEventType)
                        .toList());
    }

    private static <T> T onTemporal(int port, Function<WorkflowClient, T> call) {
        WorkflowServiceStubs stubs =
                WorkflowServiceStubs.newServiceStubs(TemporalConnection.plaintext("127.0.0.1:" + port)
                        .workflowServiceStubsOptions()
                        .build());
        try {
            return call.apply(WorkflowClient.newInstance(stubs));
        } finally {
            stubs.shutdownNow();
        }
    }

    private static String deliveryStatus(DropwizardTestSupport<RelayboxConfiguration> app) {
        return Jdbi.create(app.getConfiguration().getDatabase().getUrl(), "postgres", "")
                .withHandle(h -> h.createQuery("SELECT status FROM deliveries")
                        .mapTo(String.class)
                        .findOne()
                        .orElse(null));
    }
}
