package dev.relaybox.service.api;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.relaybox.service.Api;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import jakarta.ws.rs.client.Entity;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One body limit and one storability check for every route, the admin's as the producer's: a body too large is a 413 and one
 * PostgreSQL cannot store a 400, each with its reason, and nothing is written.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class JsonBodiesTest {
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension();
    static final Api API = new Api(APP);
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void aBodyTooLargeIsRefusedWithItsReasonAndWritesNothing() {
        String huge = "x".repeat(300 * 1024);
        Answer tenant = API.admin("POST", "/admin/tenants", Map.of("key", "huge", "name", huge));
        tenant.assertError(413, "payload_too_large");
        assertThat(API.admin("GET", "/admin/tenants/huge", null).status()).isEqualTo(404);

        Answer endpoint =
                API.admin("POST", "/admin/endpoints", Map.of("name", "huge", "url", "https://93.184.215.14/" + huge));
        endpoint.assertError(413, "payload_too_large");
    }

    @Test
    void aBodyPostgresqlCannotStoreIsRefusedWithItsReason() {
        Answer nul = Answer.of(API.request("/admin/tenants", TestApp.ADMIN_TOKEN)
                .post(Entity.json("{\"key\": \"nul\", \"name\": \"a\\u0000b\"}")));
        assertThat(nul.status()).isEqualTo(400);
        assertThat(nul.text("reason")).isNotBlank();
        assertThat(API.admin("GET", "/admin/tenants/nul", null).status()).isEqualTo(404);
    }

    @Test
    void aNulByteInAQueryParameterIsABadRequestNotAServerError() {
        for (String path : List.of(
                "/admin/story?q=a%00b",
                "/admin/dead-letters?eventType=order%00",
                "/admin/dead-letters/count?peer=%00",
                "/admin/inbox?aggregate=order:%00",
                "/admin/deliveries?endpoint=%00",
                "/admin/outbox?tenant=%00")) {
            Answer answer = API.admin("GET", path, null);
            assertThat(answer.status()).as(path).isEqualTo(400);
            assertThat(answer.text("error")).as(path).isEqualTo("invalid_query");
            assertThat(answer.text("reason")).as(path).contains("NUL");
        }
    }

    @Test
    void aValueOfAnotherTypeIsRefusedNotConverted() {
        assertThat(API.admin("POST", "/admin/tenants", Map.of("key", "typed", "name", "Typed"))
                        .status())
                .isEqualTo(201);
        Map<String, Answer> answers = new LinkedHashMap<>();
        answers.put("a number for a text", API.admin("PATCH", "/admin/tenants/typed", Map.of("name", 42)));
        answers.put("0 for false", API.admin("PATCH", "/admin/tenants/typed", Map.of("enabled", 0)));
        answers.put(
                "a text for a number",
                API.admin(
                        "POST",
                        "/admin/endpoints",
                        Map.of("name", "typed", "url", "https://93.184.215.14/", "burst", "5")));
        answers.put("an empty time", API.admin("GET", "/admin/deliveries?until=", null));
        answers.put("null for false", API.admin("GET", "/admin/dead-letters?open=null", null));
        answers.put("an empty status", API.admin("GET", "/admin/inbox?status=", null));
        answers.forEach((what, answer) -> {
            assertThat(answer.status()).as(what).isEqualTo(400);
            assertThat(answer.text("reason")).as(what).isNotBlank();
        });
        assertThat(API.admin("GET", "/admin/tenants/typed", null).text("name"))
                .as("nothing changed")
                .isEqualTo("Typed");
        assertThat(API.admin("GET", "/admin/endpoints", null).body()).isEmpty();
        assertThat(API.admin("GET", "/admin/dead-letters/replay", null).status())
                .as("a route that takes another method, not an id")
                .isEqualTo(405);
    }

    @Test
    void whatTheHttpServerRefusesItselfAnswersTheOneJsonErrorShape() throws Exception {
        HttpClient client = HttpClient.newHttpClient();
        String base = "http://127.0.0.1:" + APP.getLocalPort();

        HttpResponse<String> trace = client.send(
                HttpRequest.newBuilder(URI.create(base + "/outbox"))
                        .method("TRACE", HttpRequest.BodyPublishers.noBody())
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(trace.statusCode()).isEqualTo(405);
        assertThat(trace.headers().firstValue("content-type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
        assertThat(JSON.readTree(trace.body()).path("error").asText()).isEqualTo("method_not_allowed");
        assertThat(trace.headers().firstValue("allow"))
                .hasValueSatisfying(allow -> assertThat(allow).contains("GET").doesNotContain("TRACE"));

        HttpResponse<String> suspicious = client.send(
                HttpRequest.newBuilder(URI.create(base + "/admin/dead-letters/%5C"))
                        .header("authorization", "Bearer " + TestApp.ADMIN_TOKEN)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        assertThat(suspicious.statusCode()).isEqualTo(400);
        assertThat(suspicious.headers().firstValue("content-type"))
                .hasValueSatisfying(type -> assertThat(type).startsWith("application/json"));
        assertThat(JSON.readTree(suspicious.body()).path("error").asText()).isEqualTo("bad_request");
        assertThat(JSON.readTree(suspicious.body()).path("reason").asText()).isNotBlank();
    }

    @Test
    void refusalsOfAMethodAMediaTypeOrARoleSayWhatTheRouteTakes() {
        Answer wrongMethod = API.producer("DELETE", "/outbox", null);
        assertThat(wrongMethod.status()).isEqualTo(405);
        assertThat(wrongMethod.text("error")).isEqualTo("method_not_allowed");
        assertThat(API.request("/outbox", TestApp.PRODUCER_TOKEN)
                        .method("DELETE")
                        .getHeaderString("Allow"))
                .contains("POST");

        Answer plainText =
                Answer.of(API.request("/outbox", TestApp.PRODUCER_TOKEN).post(Entity.entity("hello", "text/plain")));
        assertThat(plainText.status()).isEqualTo(415);
        assertThat(plainText.text("reason")).contains("Content-Type: application/json");

        Answer wrongRole = API.producer("GET", "/admin/endpoints", null);
        assertThat(wrongRole.status()).isEqualTo(403);
        assertThat(wrongRole.text("reason")).contains("admin");
    }
}
