package dev.relaybox.service.api;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.relaybox.activities.outbound.StandardWebhooksVerifier;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.client.ApiClient;
import dev.relaybox.client.ApiException;
import dev.relaybox.client.api.AdminApi;
import dev.relaybox.client.api.EndpointsApi;
import dev.relaybox.client.api.ProducerApi;
import dev.relaybox.client.model.Accepted;
import dev.relaybox.client.model.DeadLetter;
import dev.relaybox.client.model.Delivery;
import dev.relaybox.client.model.DeliveryDetail;
import dev.relaybox.client.model.EndpointView;
import dev.relaybox.client.model.NewEndpoint;
import dev.relaybox.client.model.OutboxEventRequest;
import dev.relaybox.client.model.ReplayRequest;
import dev.relaybox.service.Api;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The Java client the build generates from {@code client/openapi.json} (openapi-generator), used as a user's code
 * would: the document it was generated from must be the one the service serves, and the README's outbound
 * walkthrough runs through it from end to end, every answer read as the typed model the document promised.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class GeneratedClientTest {
    static final Path GENERATED_FROM = Path.of("..", "client", "openapi.json");
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ConfigOverride.config("delivery.retryDelays", "1s,1s"), ConfigOverride.config("delivery.jitter", "0"));
    static final Api API = new Api(APP);
    static final ObjectMapper JSON = new ObjectMapper();

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void theClientIsGeneratedFromTheDocumentTheServiceServes() throws Exception {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create(API.url("/openapi.json")))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        ObjectNode served = (ObjectNode) JSON.readTree(response.body());
        // The webhooks section is the event-type catalog of one installation, not the API.
        served.remove("webhooks");
        JsonNode generatedFrom = JSON.readTree(GENERATED_FROM.toFile());
        if (!served.equals(generatedFrom)) {
            Path fresh = Path.of("target", "openapi.json");
            Files.writeString(fresh, JSON.writerWithDefaultPrettyPrinter().writeValueAsString(served) + "\n");
        }

        assertThat(served.equals(generatedFrom))
                .as("client/openapi.json is not what the service serves; after checking the change, take it with: "
                        + "cp service/target/openapi.json client/openapi.json")
                .isTrue();
    }

    @Test
    void theReadmesOutboundWalkthroughRunsThroughTheGeneratedClient() throws Exception {
        EndpointsApi endpoints = new EndpointsApi(client(TestApp.ADMIN_TOKEN));
        ProducerApi producer = new ProducerApi(client(TestApp.PRODUCER_TOKEN));
        AdminApi admin = new AdminApi(client(TestApp.ADMIN_TOKEN));

        EndpointView receiver = endpoints.createEndpoint(new NewEndpoint()
                .name("my-receiver")
                .url(RECEIVER.url("/hooks"))
                .eventTypes(List.of("order.*")));
        assertThat(receiver.getSecret()).startsWith("whsec_");
        assertThat(endpoints.getEndpoint(receiver.getId()).getSecret())
                .as("shown once")
                .isNull();

        Accepted shipped = producer.enqueueEvent(event("order.shipped", "42"), "order-42-shipped", null);
        assertThat(producer.enqueueEvent(event("order.shipped", "42"), "order-42-shipped", null)
                        .getId())
                .as("the same idempotency key answers the same event")
                .isEqualTo(shipped.getId());
        TestReceiver.Received request = awaitReceived(shipped.getId().toString());
        assertThat(StandardWebhooksVerifier.verify(
                        receiver.getSecret(),
                        request.header("webhook-id"),
                        request.header("webhook-timestamp"),
                        request.body(),
                        request.header("webhook-signature")))
                .isTrue();
        assertThat(request.json().path("data").path("orderId").asInt()).isEqualTo(42);

        RECEIVER.script("/hooks", TestReceiver.Reply.of(503));
        Accepted failing = producer.enqueueEvent(event("order.shipped", "43"), "order-43-shipped", null);
        DeadLetter deadLetter = await().atMost(Duration.ofSeconds(60))
                .until(
                        () -> admin
                                .listDeadLetters(true, "outbox", null, null, null, "order:43", null, null, null, null)
                                .getItems()
                                .stream()
                                .findFirst()
                                .orElse(null),
                        Objects::nonNull);
        DeliveryDetail detail = admin.getDelivery(deadLetter.getReference());
        Delivery delivery = detail.getDelivery();
        assertThat(delivery.getOutboxId()).isEqualTo(failing.getId());
        assertThat(delivery.getStatus()).isEqualTo("DEAD_LETTERED");
        assertThat(detail.getAttempts())
                .extracting(attempt -> attempt.getStatusCode())
                .containsExactly(503, 503, 503);
        assertThat(admin.listDeliveries("dead_lettered", null, receiver.getName(), null, null, null, null, null)
                        .getItems())
                .extracting(Delivery::getId)
                .containsExactly(delivery.getId());

        RECEIVER.script("/hooks", TestReceiver.Reply.of(200));
        assertThat(admin.replayDeadLetter(deadLetter.getId(), new ReplayRequest().by("on-call"))
                        .getReplayed())
                .isEqualTo(1);
        awaitReceived(failing.getId().toString()); // answered 200 this time
        await().atMost(Duration.ofSeconds(30))
                .until(() -> admin.getDelivery(delivery.getId()).getDelivery().getStatus(), "DELIVERED"::equals);

        assertThatThrownBy(() -> producer.enqueueEvent(event("Order Shipped!", "44"), null, null))
                .isInstanceOfSatisfying(ApiException.class, refused -> {
                    assertThat(refused.getCode()).isEqualTo(400);
                    assertThat(refused.getResponseBody()).contains("\"error\"", "\"reason\"");
                });
    }

    private static ApiClient client(String token) {
        // As a user would: the base address, and the bearer token on every request.
        return new ApiClient(HttpClient.newBuilder(), ApiClient.createDefaultObjectMapper(), API.url(""))
                .setRequestInterceptor(request -> request.header("Authorization", "Bearer " + token))
                .setReadTimeout(Duration.ofSeconds(30));
    }

    private static OutboxEventRequest event(String eventType, String orderId) {
        return new OutboxEventRequest()
                .eventType(eventType)
                .aggregateType("order")
                .aggregateId(orderId)
                .payload(Map.of("orderId", Integer.parseInt(orderId)));
    }

    private static TestReceiver.Received awaitReceived(String webhookId) {
        return await().atMost(Duration.ofSeconds(30))
                .until(
                        () -> RECEIVER.received("/hooks").stream()
                                .filter(r -> r.status() == 200 && webhookId.equals(r.header("webhook-id")))
                                .findFirst()
                                .orElse(null),
                        Objects::nonNull);
    }
}
