package dev.relaybox.service.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Endpoint controls and health through the running application: admin API, metrics, a real receiver. */
@ExtendWith(DropwizardExtensionsSupport.class)
class EndpointControlsApiTest {
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ConfigOverride.config("delivery.retryDelays", "1s,1s,1s"),
            ConfigOverride.config("delivery.jitter", "0"),
            ConfigOverride.config("delivery.circuitBreaker.failureThreshold", "2"),
            ConfigOverride.config("delivery.circuitBreaker.probeInterval", "2s"));
    static final Api API = new Api(APP);

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void controlsAreSetShownAndChanged() {
        Answer created = API.admin(
                "POST",
                "/admin/endpoints",
                endpoint(
                        "paced",
                        "/paced",
                        Map.of(
                                "rateLimit",
                                5,
                                "burst",
                                10,
                                "maxInFlight",
                                2,
                                "ordered",
                                true,
                                "payloadFormat",
                                "raw")));

        assertThat(created.status()).isEqualTo(201);
        JsonNode controls = created.body().path("controls");
        assertThat(controls.path("rateLimit").asDouble()).isEqualTo(5.0);
        assertThat(controls.path("burst").asInt()).isEqualTo(10);
        assertThat(controls.path("maxInFlight").asInt()).isEqualTo(2);
        assertThat(controls.path("ordered").asBoolean()).isTrue();
        assertThat(controls.path("payloadFormat").asText()).isEqualTo("raw");
        assertThat(created.body().path("health").path("circuit").asText()).isEqualTo("closed");

        String id = created.text("id");
        Answer changed = API.admin(
                "PATCH",
                "/admin/endpoints/" + id,
                Map.of("rateLimit", 0, "payloadFormat", "envelope", "maxInFlight", 3));

        assertThat(changed.status()).isEqualTo(200);
        assertThat(changed.body().path("controls").path("rateLimit").isNull()).isTrue();
        assertThat(changed.body().path("controls").path("burst").isNull()).isTrue();
        assertThat(changed.body().path("controls").path("maxInFlight").asInt()).isEqualTo(3);
        assertThat(changed.body().path("controls").path("ordered").asBoolean()).isTrue();
        assertThat(changed.body().path("controls").path("payloadFormat").asText())
                .isEqualTo("envelope");
        assertThat(API.adminGet("/admin/endpoints/" + id)
                        .path("controls")
                        .path("maxInFlight")
                        .asInt())
                .isEqualTo(3);
    }

    @Test
    void invalidControlsAreRefusedWithTheOneErrorShapeAndNothingIsCreated() {
        API.admin("POST", "/admin/endpoints", endpoint("bad-rate", "/x", Map.of("rateLimit", -1)))
                .assertError(400, "invalid_request");
        API.admin("POST", "/admin/endpoints", endpoint("bad-format", "/x", Map.of("payloadFormat", "xml")))
                .assertError(400, "invalid_request");
        API.admin("POST", "/admin/endpoints", endpoint("bad-burst", "/x", Map.of("burst", 5)))
                .assertError(422, "invalid_controls");
        API.admin("POST", "/admin/endpoints", endpoint("bad-slots", "/x", Map.of("maxInFlight", "many")))
                .assertError(400, "invalid_json");

        assertThat(API.adminGet("/admin/endpoints").findValuesAsText("name"))
                .doesNotContain("bad-rate", "bad-format", "bad-burst", "bad-slots");

        String id = API.admin("POST", "/admin/endpoints", endpoint("patched", "/patched", Map.of()))
                .text("id");
        API.admin("PATCH", "/admin/endpoints/" + id, Map.of("burst", 3)).assertError(422, "invalid_controls");
        API.admin("PATCH", "/admin/endpoints/" + id, Map.of("url", RECEIVER.url("/moved"), "maxInFlight", -2))
                .assertError(400, "invalid_request");
        JsonNode unchanged = API.adminGet("/admin/endpoints/" + id);
        assertThat(unchanged.path("url").asText()).isEqualTo(RECEIVER.url("/patched"));
        assertThat(unchanged.path("controls").path("burst").isNull()).isTrue();
    }

    @Test
    void healthAndMetricsFollowDeliveries() {
        String id = API.admin("POST", "/admin/endpoints", endpoint("healthy", "/healthy", Map.of()))
                .text("id");
        RECEIVER.script("/healthy", TestReceiver.Reply.of(500), TestReceiver.Reply.of(200));

        post("health.checked", "h-1");

        await().atMost(Duration.ofSeconds(60))
                .until(() -> RECEIVER.received("/healthy").size() == 2);
        // The attempt log is written by the attempt, the failure streak by the settlement after it: await both.
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
            JsonNode health = API.adminGet("/admin/endpoints/" + id).path("health");
            assertThat(health.path("attemptsLastHour").asInt()).isEqualTo(2);
            assertThat(health.path("successRateLastHour").asDouble()).isEqualTo(0.5);
            assertThat(health.path("consecutiveFailures").asInt()).isZero();
            assertThat(health.path("lastSuccessAt").asText()).isNotBlank();
            assertThat(health.path("p50LatencyMs").isNumber()).isTrue();
            assertThat(health.path("p99LatencyMs").isNumber()).isTrue();
        });
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(metrics())
                        // By id, the operator's own tenant "": a name is only the info metric's label.
                        .contains("relaybox_endpoint_info{endpoint=\"" + id + "\",name=\"healthy\",tenant=\"\"} 1")
                        .contains("relaybox_endpoint_success_ratio{endpoint=\"" + id + "\",tenant=\"\"} 0.5")
                        .contains("relaybox_endpoint_circuit_open{endpoint=\"" + id + "\",tenant=\"\"} 0.0")
                        .contains("relaybox_endpoint_latency_seconds{endpoint=\"" + id
                                + "\",quantile=\"0.99\",tenant=\"\"}")
                        .doesNotContain("endpoint=\"healthy\""));
    }

    @Test
    void circuitOpensWithItsNextProbeShownThenClosesAndDeliversEverything() {
        String id = API.admin("POST", "/admin/endpoints", endpoint("outage", "/outage", Map.of()))
                .text("id");
        RECEIVER.script("/outage", TestReceiver.Reply.of(503));

        for (int i = 0; i < 5; i++) {
            post("outage.tested", "o-" + i);
        }

        await().atMost(Duration.ofSeconds(60))
                .until(() -> "open"
                        .equals(API.adminGet("/admin/endpoints/" + id)
                                .path("health")
                                .path("circuit")
                                .asText()));
        JsonNode open = API.adminGet("/admin/endpoints/" + id).path("health");
        assertThat(open.path("consecutiveFailures").asInt()).isGreaterThanOrEqualTo(2);
        assertThat(open.path("nextProbeAt").asText()).isNotBlank();
        assertThat(open.path("failingSince").asText()).isNotBlank();
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(metrics())
                        .contains("relaybox_endpoint_circuit_open{endpoint=\"" + id + "\",tenant=\"\"} 1.0"));

        RECEIVER.script("/outage", TestReceiver.Reply.of(200));

        await().atMost(Duration.ofSeconds(90))
                .until(() -> API.adminGet("/admin/deliveries?status=delivered&endpoint=outage")
                                .path("items")
                                .size()
                        == 5);
        assertThat(API.adminGet("/admin/endpoints/" + id)
                        .path("health")
                        .path("circuit")
                        .asText())
                .isEqualTo("closed");
        assertThat(API.adminGet("/admin/dead-letters").path("items").findValuesAsText("peer"))
                .doesNotContain("outage");
    }

    private static Map<String, Object> endpoint(String name, String path, Map<String, Object> controls) {
        Map<String, Object> body = new HashMap<>(controls);
        body.put("name", name);
        body.put("url", RECEIVER.url(path));
        body.put(
                "eventTypes",
                List.of(name.equals("healthy") ? "health.*" : name.equals("outage") ? "outage.*" : "none"));
        return body;
    }

    private static void post(String eventType, String aggregateId) {
        assertThat(API.enqueue(eventType, "order", aggregateId, Map.of("id", aggregateId))
                        .status())
                .isEqualTo(202);
    }

    private static String metrics() {
        return APP.client()
                .target("http://localhost:" + APP.getAdminPort() + "/metrics")
                .request()
                .get(String.class);
    }
}
