package dev.relaybox.service.api;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.service.auth.BearerTokens;
import dev.relaybox.service.config.AuthFactory;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.testing.junit5.ResourceExtension;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.client.Invocation;
import jakarta.ws.rs.client.WebTarget;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * One resource in Jersey's in-memory container with the application's authentication and its one error shape, so
 * its refusals are tested in milliseconds, without Jetty or Temporal.
 */
public final class ResourceTests {
    public static final String ADMIN_TOKEN = "resource-test-admin";
    public static final String PRODUCER_TOKEN = "resource-test-producer";
    private static final ObjectMapper JSON = new ObjectMapper();

    private ResourceTests() {}

    /** An answer: its status and its JSON body (missing when it had none). */
    public record Answer(int status, JsonNode body) {
        public String error() {
            return body.path("error").asText();
        }
    }

    public static ResourceExtension extension(Object resource) {
        ObjectMapper mapper = Jackson.newObjectMapper();
        StrictTypes.apply(mapper);
        ResourceExtension.Builder builder = ResourceExtension.builder()
                .setMapper(mapper)
                .setRegisterDefaultExceptionMappers(false)
                .addResource(resource);
        BearerTokens.providers(authConfig(), null).forEach(builder::addProvider);
        JsonErrorMappers.providers().forEach(builder::addProvider);
        return builder.build();
    }

    /**
     * Calls {@code path} (query parameters included, unencoded) with the bearer {@code token} (none when null) and
     * {@code body} as JSON (a String is sent as it is; none when null).
     */
    public static Answer call(ResourceExtension resources, String method, String path, String token, Object body) {
        int question = path.indexOf('?');
        WebTarget target = resources.target(question < 0 ? path : path.substring(0, question));
        if (question >= 0) {
            for (String pair : path.substring(question + 1).split("&")) {
                int equals = pair.indexOf('=');
                target = target.queryParam(pair.substring(0, equals), pair.substring(equals + 1));
            }
        }
        Invocation.Builder request = target.request();
        if (token != null) {
            request = request.header("Authorization", "Bearer " + token);
        }
        try (Response response = body == null
                ? request.method(method)
                : request.method(method, body instanceof String text ? Entity.json(text) : Entity.json(body))) {
            String text = response.hasEntity() ? response.readEntity(String.class) : "";
            return new Answer(response.getStatus(), text.isEmpty() ? JSON.missingNode() : JSON.readTree(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static AuthFactory authConfig() {
        try {
            return JSON.readValue(
                    "{\"adminTokens\": \"" + ADMIN_TOKEN + "\", \"producerTokens\": \"" + PRODUCER_TOKEN + "\"}",
                    AuthFactory.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
