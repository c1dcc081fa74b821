package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.dropwizard.testing.DropwizardTestSupport;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import jakarta.ws.rs.client.Client;
import jakarta.ws.rs.client.ClientBuilder;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.client.Invocation;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.jdbi.v3.core.Jdbi;

/** Calls the running application as producers and operators do; every response is read whole and closed. */
public final class Api {
    private static final ObjectMapper JSON = new ObjectMapper();

    private final DropwizardTestSupport<RelayboxConfiguration> app;
    // Asked for at the first call: tests build their Api before the application has started.
    private final Supplier<Client> client;

    public Api(DropwizardAppExtension<RelayboxConfiguration> app) {
        this(app.getTestSupport(), app::client);
    }

    public Api(DropwizardTestSupport<RelayboxConfiguration> app) {
        this(app, fixed(ClientBuilder.newClient()));
    }

    private static Supplier<Client> fixed(Client client) {
        return () -> client;
    }

    private Api(DropwizardTestSupport<RelayboxConfiguration> app, Supplier<Client> client) {
        this.app = app;
        this.client = client;
    }

    /** A response read whole and closed, so the test client's connection pool never runs dry. */
    public record Answer(int status, JsonNode body) {
        public static Answer of(Response response) {
            try (response) {
                String text = response.readEntity(String.class);
                return new Answer(response.getStatus(), text == null || text.isBlank() ? null : JSON.readTree(text));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }

        public String text(String field) {
            return body.path(field).asText();
        }

        /** Asserts the one error shape: this status, this error code, and a reason for people. */
        public void assertError(int expectedStatus, String error) {
            assertThat(status).isEqualTo(expectedStatus);
            assertThat(text("error")).isEqualTo(error);
            assertThat(text("reason")).isNotBlank();
        }
    }

    public String url(String path) {
        return "http://localhost:" + app.getLocalPort() + path;
    }

    public Invocation.Builder request(String path, String token) {
        Invocation.Builder request = client.get().target(url(path)).request();
        return token == null ? request : request.header("Authorization", "Bearer " + token);
    }

    public Answer admin(String method, String path, Object body) {
        return send(request(path, TestApp.ADMIN_TOKEN), method, body);
    }

    public JsonNode adminGet(String path) {
        return admin("GET", path, null).body();
    }

    public Answer producer(String method, String path, Object body) {
        return send(request(path, TestApp.PRODUCER_TOKEN), method, body);
    }

    public Answer anonymous(String method, String path, Object body) {
        return send(request(path, null), method, body);
    }

    private static Answer send(Invocation.Builder request, String method, Object body) {
        return Answer.of(body == null ? request.method(method) : request.method(method, Entity.json(body)));
    }

    /** {@code POST /outbox} as a producer. */
    /** Registers an endpoint as an operator does, for these event types; its id. */
    public String endpoint(String name, String url, String eventTypes) {
        Answer created =
                admin("POST", "/admin/endpoints", Map.of("name", name, "url", url, "eventTypes", List.of(eventTypes)));
        assertThat(created.status()).as("endpoint %s: %s", name, created.body()).isEqualTo(201);
        return created.text("id");
    }

    public Answer enqueue(String eventType, String aggregateType, String aggregateId, Object payload) {
        return producer(
                "POST",
                "/outbox",
                Map.of(
                        "eventType",
                        eventType,
                        "aggregateType",
                        aggregateType,
                        "aggregateId",
                        aggregateId,
                        "payload",
                        payload));
    }

    /** A webhook about {@code orderId} from the example partner "shop", signed with its development secret. */
    public Answer shopWebhook(String eventId, String type, String orderId) {
        return shopWebhook(eventId, "{\"type\": \"" + type + "\", \"data\": {\"orderId\": \"" + orderId + "\"}}");
    }

    /** A webhook with this body from the example partner "shop", signed with its development secret. */
    public Answer shopWebhook(String eventId, String body) {
        long timestamp = Instant.now().getEpochSecond();
        return Answer.of(request("/webhooks/shop", null)
                .header("webhook-id", eventId)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", ShopWebhooks.signature(eventId, timestamp, body))
                .post(Entity.entity(body, MediaType.APPLICATION_JSON)));
    }

    /** The application's own database, for what the API does not show. */
    public Jdbi jdbi() {
        return Jdbi.create(app.getConfiguration().getDatabase().getUrl(), "postgres", "");
    }
}
