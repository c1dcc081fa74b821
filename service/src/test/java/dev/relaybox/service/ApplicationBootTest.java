package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import io.temporal.worker.WorkerFactory;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.Response;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(DropwizardExtensionsSupport.class)
class ApplicationBootTest {
    static final int TEMPORAL_PORT = TestApp.freePort();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(TEMPORAL_PORT);

    @Test
    void healthChecksAreGreenForDatabaseAndTemporal() {
        Response response = APP.client()
                .target("http://localhost:" + APP.getAdminPort() + "/healthcheck")
                .request()
                .get();
        JsonNode body = response.readEntity(JsonNode.class);

        assertThat(response.getStatus()).isEqualTo(200);
        assertThat(body.path("postgresql").path("healthy").asBoolean()).isTrue();
        assertThat(body.path("temporal").path("healthy").asBoolean()).isTrue();
    }

    @Test
    void workflowRoundTripsThroughEmbeddedTemporalOverItsPort() {
        WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
                .setTarget("localhost:" + TEMPORAL_PORT)
                .build());
        WorkflowClient client = WorkflowClient.newInstance(stubs);
        WorkerFactory factory = WorkerFactory.newInstance(client);
        try {
            factory.newWorker("ping").registerWorkflowImplementationTypes(PingWorkflow.Impl.class);
            factory.start();
            PingWorkflow ping = client.newWorkflowStub(
                    PingWorkflow.class,
                    WorkflowOptions.newBuilder().setTaskQueue("ping").build());

            assertThat(ping.ping("relaybox")).isEqualTo("pong relaybox");
        } finally {
            factory.shutdownNow();
            stubs.shutdownNow();
        }
    }

    @Test
    void embeddedTemporalListensOnLoopbackOnly() {
        Assumptions.assumeTrue(ListeningSockets.available(), "needs Linux /proc/net/tcp to see listening sockets");

        List<InetAddress> listening = ListeningSockets.on(TEMPORAL_PORT);

        assertThat(listening)
                .as("listening sockets on the embedded Temporal port %d", TEMPORAL_PORT)
                .isNotEmpty()
                .allSatisfy(address -> assertThat(address.isLoopbackAddress())
                        .as("%s is a loopback address", address.getHostAddress())
                        .isTrue());
    }

    @Test
    void applicationAndAdminPortsListenOnLoopbackOnlyByDefault() {
        Assumptions.assumeTrue(ListeningSockets.available(), "needs Linux /proc/net/tcp to see listening sockets");

        for (int port : List.of(APP.getLocalPort(), APP.getAdminPort())) {
            assertThat(ListeningSockets.on(port))
                    .as("listening sockets on port %d", port)
                    .isNotEmpty()
                    .allSatisfy(address -> assertThat(address.isLoopbackAddress())
                            .as("%s is a loopback address", address.getHostAddress())
                            .isTrue());
        }
    }

    @Test
    void anEndpointOnRelayboxsOwnPortsIsRefusedWhileALocalReceiverIsAccepted() {
        String admin = "http://127.0.0.1:" + APP.getAdminPort() + "/tasks/log-level";
        String api = "http://localhost:" + APP.getLocalPort() + "/outbox";
        String receiver = "http://127.0.0.1:" + TestApp.freePort() + "/webhooks";

        Response toAdmin = createEndpoint("to-admin", admin);
        Response toApi = createEndpoint("to-api", api);
        Response toReceiver = createEndpoint("local-receiver", receiver);

        assertThat(toAdmin.getStatus()).isEqualTo(422);
        JsonNode refused = toAdmin.readEntity(JsonNode.class);
        assertThat(refused.path("error").asText()).isEqualTo("url_refused");
        assertThat(refused.path("reason").asText()).contains("Relaybox's own", String.valueOf(APP.getAdminPort()));
        assertThat(toApi.getStatus()).isEqualTo(422);
        assertThat(toReceiver.getStatus()).isEqualTo(201);
    }

    private static Response createEndpoint(String name, String url) {
        return APP.client()
                .target("http://localhost:" + APP.getLocalPort() + "/admin/endpoints")
                .request()
                .header("Authorization", "Bearer " + TestApp.ADMIN_TOKEN)
                .post(Entity.json(Map.of("name", name, "url", url, "eventTypes", List.of("order.*"))));
    }

    @Test
    void adminApiRefusesRequestsWithoutValidToken() {
        String url = "http://localhost:" + APP.getLocalPort() + "/admin/overview";

        Response missing = APP.client().target(url).request().get();
        Response wrong = APP.client()
                .target(url)
                .request()
                .header("Authorization", "Bearer nope")
                .get();
        Response producer = APP.client()
                .target(url)
                .request()
                .header("Authorization", "Bearer " + TestApp.PRODUCER_TOKEN)
                .get();
        Response admin = APP.client()
                .target(url)
                .request()
                .header("Authorization", "Bearer " + TestApp.ADMIN_TOKEN)
                .get();

        assertThat(missing.getStatus()).isEqualTo(401);
        assertThat(missing.readEntity(JsonNode.class).path("error").asText()).isEqualTo("unauthorized");
        assertThat(wrong.getStatus()).isEqualTo(401);
        assertThat(producer.getStatus()).isEqualTo(403);
        assertThat(producer.readEntity(JsonNode.class).path("reason").asText()).isNotBlank();
        assertThat(admin.getStatus()).isEqualTo(200);
        assertThat(admin.readEntity(JsonNode.class).path("openDeadLetters").asLong())
                .isZero();
    }

    @Test
    void unknownPathAnswersWithJsonError() {
        Response response = APP.client()
                .target("http://localhost:" + APP.getLocalPort() + "/nowhere")
                .request()
                .get();

        assertThat(response.getStatus()).isEqualTo(404);
        assertThat(response.readEntity(JsonNode.class).path("error").asText()).isEqualTo("not_found");
    }
}
