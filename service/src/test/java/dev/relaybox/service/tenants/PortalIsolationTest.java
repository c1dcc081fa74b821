package dev.relaybox.service.tenants;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.producer.IdempotentEnqueue;
import dev.relaybox.producer.JdbcOutbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.service.Api;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import jakarta.ws.rs.HttpMethod;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.client.Entity;
import java.lang.reflect.Method;
import java.sql.Connection;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.StreamSupport;
import org.jdbi.v3.core.Handle;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A portal link of tenant alpha reaches alpha's endpoints and deliveries and nothing of tenant beta's: every portal
 * route is probed with beta's ids (the table must name every route the resource has), and beta is unchanged after.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class PortalIsolationTest {
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ConfigOverride.config("portal.theme.title", "Webhooks by Example"),
            ConfigOverride.config("portal.theme.accentColor", "#111111"),
            ConfigOverride.config("delivery.jitter", "0"),
            ConfigOverride.config("delivery.retryDelays", "1s"),
            ConfigOverride.config("portal.destinationTypes", "sqs"));
    static final Api API = new Api(APP);

    static String alphaEndpoint;
    static String betaEndpoint;
    static String betaDelivery;
    static String alphaToken;

    @BeforeAll
    static void twoTenantsWithOneDeliveryEach() {
        RECEIVER.answer(r -> TestReceiver.Reply.of(r.path().startsWith("/beta") ? 400 : 200));
        for (String tenant : List.of("alpha", "beta")) {
            assertThat(API.admin(
                                    "POST",
                                    "/admin/tenants",
                                    Map.of(
                                            "key",
                                            tenant,
                                            "name",
                                            tenant + " Inc.",
                                            "theme",
                                            Map.of("accentColor", "#2563eb")))
                            .status())
                    .isEqualTo(201);
        }
        alphaEndpoint = endpoint("alpha");
        betaEndpoint = endpoint("beta");
        API.admin("POST", "/admin/endpoints", Map.of("name", "operator", "url", RECEIVER.url("/operator")));
        for (String tenant : List.of("alpha", "beta")) {
            assertThat(API.producer("POST", "/outbox", event(tenant)).status()).isEqualTo(202);
        }
        assertThat(API.enqueue("order.created", "order", "op-1", Map.of("n", 1)).status())
                .isEqualTo(202);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> deliveries("beta", "DEAD_LETTERED").size() == 1
                        && deliveries("alpha", "DELIVERED").size() == 1);
        betaDelivery = deliveries("beta", "DEAD_LETTERED").get(0).path("id").asText();
        alphaToken = API.admin("POST", "/admin/tenants/alpha/portal-access", Map.of())
                .text("token");
    }

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void eachTenantReceivesOnlyItsOwnEventsAndTheOperatorsEndpointOnlyTheOperatorsEvent() {
        await().atMost(Duration.ofSeconds(30))
                .until(() -> RECEIVER.received("/operator").size() == 1);
        assertThat(RECEIVER.received("/alpha"))
                .singleElement()
                .satisfies(r ->
                        assertThat(r.json().path("data").path("for").asText()).isEqualTo("alpha"));
        assertThat(RECEIVER.received("/operator")
                        .get(0)
                        .json()
                        .path("data")
                        .path("n")
                        .asInt())
                .isEqualTo(1);
        assertThat(RECEIVER.received("/beta"))
                .allSatisfy(r ->
                        assertThat(r.json().path("data").path("for").asText()).isEqualTo("beta"));
    }

    /** Every portal route, with what a link of alpha gets when it names beta's things. */
    private static Map<String, Function<String, Answer>> probes() {
        Map<String, Function<String, Answer>> probes = new LinkedHashMap<>();
        probes.put("GET /portal/api/me", t -> portal(t, "GET", "/portal/api/me", null));
        probes.put("GET /portal/api/event-types", t -> portal(t, "GET", "/portal/api/event-types", null));
        probes.put("GET /portal/api/endpoints", t -> portal(t, "GET", "/portal/api/endpoints", null));
        probes.put(
                "POST /portal/api/endpoints",
                t -> portal(
                        t,
                        "POST",
                        "/portal/api/endpoints",
                        Map.of("name", "sneaky", "url", RECEIVER.url("/sneaky"), "tenant", "beta")));
        probes.put(
                "GET /portal/api/endpoints/{id}", t -> portal(t, "GET", "/portal/api/endpoints/" + betaEndpoint, null));
        probes.put(
                "PATCH /portal/api/endpoints/{id}",
                t -> portal(
                        t,
                        "PATCH",
                        "/portal/api/endpoints/" + betaEndpoint,
                        Map.of("url", RECEIVER.url("/stolen"), "rotateSecret", true)));
        probes.put(
                "POST /portal/api/endpoints/{id}/test",
                t -> portal(t, "POST", "/portal/api/endpoints/" + betaEndpoint + "/test", Map.of()));
        probes.put(
                "POST /portal/api/endpoints/{id}/recover",
                t -> portal(
                        t,
                        "POST",
                        "/portal/api/endpoints/" + betaEndpoint + "/recover",
                        Map.of("since", "2020-01-01T00:00:00Z")));
        probes.put(
                "GET /portal/api/endpoints/{id}/stats",
                t -> portal(t, "GET", "/portal/api/endpoints/" + betaEndpoint + "/stats", null));
        probes.put(
                "GET /portal/api/deliveries",
                t -> portal(t, "GET", "/portal/api/deliveries?endpoint=" + betaEndpoint, null));
        probes.put(
                "GET /portal/api/deliveries/{id}",
                t -> portal(t, "GET", "/portal/api/deliveries/" + betaDelivery, null));
        probes.put(
                "POST /portal/api/deliveries/{id}/resend",
                t -> portal(t, "POST", "/portal/api/deliveries/" + betaDelivery + "/resend", Map.of()));
        return probes;
    }

    @Test
    void theProbeTableNamesEveryPortalRoute() {
        String base = PortalResource.class.getAnnotation(Path.class).value();
        Set<String> routes = Arrays.stream(PortalResource.class.getMethods())
                .filter(m -> httpMethod(m) != null)
                .map(m -> httpMethod(m) + " " + base
                        + (m.getAnnotation(Path.class) == null
                                ? ""
                                : m.getAnnotation(Path.class).value()))
                .collect(Collectors.toSet());
        assertThat(probes().keySet()).containsExactlyInAnyOrderElementsOf(routes);
    }

    @Test
    void aLinkOfAlphaFindsNothingOfBetaAndChangesNothingOfBetas() {
        Map<String, Answer> answers = new LinkedHashMap<>();
        probes().forEach((route, probe) -> answers.put(route, probe.apply(alphaToken)));

        answers.forEach((route, answer) -> {
            if (route.equals("POST /portal/api/endpoints")) {
                assertThat(answer.status())
                        .as("a portal endpoint has no tenant field")
                        .isEqualTo(400);
                assertThat(answer.text("error")).isEqualTo("unknown_field");
            } else if (route.contains("{id}")) {
                assertThat(answer.status()).as(route).isEqualTo(404);
                assertThat(answer.text("reason")).as(route).isNotBlank();
            } else {
                assertThat(answer.status()).as(route).isEqualTo(200);
                assertThat(answer.body().toString()).as(route).doesNotContain(betaEndpoint, betaDelivery, "beta");
            }
        });
        JsonNode me = answers.get("GET /portal/api/me").body();
        assertThat(me.path("tenant").path("key").asText()).isEqualTo("alpha");
        assertThat(me.path("theme").path("accentColor").asText())
                .as("the tenant's own")
                .isEqualTo("#2563eb");
        assertThat(me.path("theme").path("title").asText()).as("the global one").isEqualTo("Webhooks by Example");
        assertThat(ids(portal(alphaToken, "GET", "/portal/api/endpoints", null).body()))
                .containsExactly(alphaEndpoint);

        JsonNode beta = API.adminGet("/admin/endpoints/" + betaEndpoint);
        assertThat(beta.path("url").asText()).isEqualTo(RECEIVER.url("/beta"));
        assertThat(beta.path("rotatingSecret").asBoolean()).isFalse();
        assertThat(API.adminGet("/admin/tenants/beta/endpoints"))
                .singleElement()
                .satisfies(e -> assertThat(e.path("tenant").asText()).isEqualTo("beta"));
        assertThat(deliveries("beta", "DEAD_LETTERED")).hasSize(1);
        assertThat(API.adminGet("/admin/dead-letters?tenant=beta").path("items"))
                .hasSize(1);
        assertThat(API.adminGet("/admin/outbox?eventType=relaybox.test").toString())
                .doesNotContain(betaEndpoint);
    }

    @Test
    void whatOnlyTheOperatorSetsIsRefusedInThePortalAndChangesNothing() {
        Map<String, Answer> answers = new LinkedHashMap<>();
        Map<String, Object> operatorOnly =
                Map.of("filter", Map.of("all", List.of()), "headers", Map.of("X-Api-Key", "k"), "secret", "whsec_mine");
        operatorOnly.forEach((field, value) -> {
            answers.put(
                    "create with " + field,
                    portal(
                            alphaToken,
                            "POST",
                            "/portal/api/endpoints",
                            Map.of("name", "with-" + field, "url", RECEIVER.url("/with"), field, value)));
            answers.put(
                    "change with " + field,
                    portal(alphaToken, "PATCH", "/portal/api/endpoints/" + alphaEndpoint, Map.of(field, value)));
        });

        answers.forEach((what, answer) -> {
            assertThat(answer.status()).as(what).isEqualTo(400);
            assertThat(answer.text("error")).as(what).isEqualTo("unknown_field");
        });
        assertThat(ids(portal(alphaToken, "GET", "/portal/api/endpoints", null).body()))
                .as("refused before the route ran: nothing created")
                .containsExactly(alphaEndpoint);
    }

    @Test
    void aTenantGivesAnEndpointOnlyABrokerDestinationTheOperatorAllowsWithItsOwnCredentials() {
        assertThat(API.admin("POST", "/admin/tenants", Map.of("key", "epsilon", "name", "Epsilon Inc."))
                        .status())
                .isEqualTo(201);
        String token = API.admin("POST", "/admin/tenants/epsilon/portal-access", Map.of())
                .text("token");
        Map<String, Object> sqsWithKeys = Map.of(
                "type",
                "sqs",
                "region",
                "eu-west-1",
                "accessKeyId",
                "AKIAEPSILON",
                "secretAccessKey",
                "epsilon-secret");
        String queue = "http://127.0.0.1:9/123456789012/epsilon-orders";

        Answer rabbit = portal(
                token,
                "POST",
                "/portal/api/endpoints",
                Map.of(
                        "name",
                        "epsilon-rabbit",
                        "url",
                        "amqp://example.com/%2F",
                        "destination",
                        Map.of("type", "rabbitmq", "exchange", "orders")));
        Answer operatorsKeys = portal(
                token,
                "POST",
                "/portal/api/endpoints",
                Map.of(
                        "name",
                        "epsilon-borrowed",
                        "url",
                        queue,
                        "destination",
                        Map.of("type", "sqs", "region", "eu-west-1")));
        Answer created = portal(
                token,
                "POST",
                "/portal/api/endpoints",
                Map.of("name", "epsilon-sqs", "url", queue, "destination", sqsWithKeys));
        String id = created.body().path("id").asText();
        Answer toKafka = portal(
                token,
                "PATCH",
                "/portal/api/endpoints/" + id,
                Map.of("url", "kafka://example.com:9092", "destination", Map.of("type", "kafka", "topic", "orders")));

        assertThat(rabbit.status()).isEqualTo(403);
        assertThat(rabbit.text("error")).isEqualTo("destination_not_allowed");
        assertThat(operatorsKeys.status())
                .as("the operator's own AWS credentials")
                .isEqualTo(422);
        assertThat(operatorsKeys.text("error")).isEqualTo("destination_invalid");
        assertThat(created.status()).as(created.body().toString()).isEqualTo(201);
        assertThat(created.body().path("destination").path("type").asText()).isEqualTo("sqs");
        assertThat(created.body().path("destination").path("summary").asText()).isEqualTo("SQS queue");
        assertThat(created.body().toString()).doesNotContain("epsilon-secret");
        assertThat(toKafka.status()).isEqualTo(403);
        Answer listed = portal(token, "GET", "/portal/api/endpoints", null);
        assertThat(ids(listed.body())).containsExactly(id);
        assertThat(listed.body().toString()).contains("epsilon-orders").doesNotContain("kafka");
    }

    @Test
    void aLinkStopsWorkingWhenRevokedExpiredAlteredOrItsTenantDisabled() {
        Answer access = API.admin("POST", "/admin/tenants/alpha/portal-access", Map.of());
        String revoked = access.text("token");
        assertThat(access.text("url")).endsWith("/portal#token=" + revoked);
        String revokedSession = access.text("sessionId");
        assertThat(portal(revoked, "GET", "/portal/api/me", null).status()).isEqualTo(200);
        assertThat(API.admin("DELETE", "/admin/tenants/alpha/portal-access/" + revokedSession, null)
                        .body()
                        .path("revoked")
                        .asInt())
                .isEqualTo(1);
        portal(revoked, "GET", "/portal/api/me", null).assertError(401, "unauthorized");

        String shortLived = API.admin("POST", "/admin/tenants/alpha/portal-access", Map.of("ttl", "PT1S"))
                .text("token");
        await().atMost(Duration.ofSeconds(10))
                .until(() -> portal(shortLived, "GET", "/portal/api/me", null).status() == 401);

        char last = alphaToken.charAt(alphaToken.length() - 2);
        String altered = alphaToken.substring(0, alphaToken.length() - 2)
                + (last == 'A' ? 'B' : 'A')
                + alphaToken.charAt(alphaToken.length() - 1);
        portal(altered, "GET", "/portal/api/me", null).assertError(401, "unauthorized");

        API.admin("POST", "/admin/tenants/alpha/portal-access", Map.of("ttl", "P30D"))
                .assertError(422, "invalid_ttl");
        API.admin("POST", "/admin/tenants/nobody/portal-access", Map.of()).assertError(404, "tenant_not_found");
        assertThat(API.request("/portal/api/me", TestApp.ADMIN_TOKEN).get().getStatus())
                .as("an admin token is not a portal link")
                .isEqualTo(403);

        API.admin("POST", "/admin/tenants", Map.of("key", "gamma", "name", "Gamma"));
        List<String> gammas = List.of(link("gamma"), link("gamma"));
        assertThat(API.admin("DELETE", "/admin/tenants/gamma/portal-access", null)
                        .body()
                        .path("revoked")
                        .asInt())
                .isEqualTo(2);
        gammas.forEach(t -> portal(t, "GET", "/portal/api/me", null).assertError(401, "unauthorized"));

        API.admin("POST", "/admin/tenants", Map.of("key", "delta", "name", "Delta"));
        String delta = link("delta");
        String deltaEndpoint = endpoint("delta");
        assertThat(API.admin("PATCH", "/admin/tenants/delta", Map.of("enabled", false))
                        .status())
                .isEqualTo(200);
        portal(delta, "GET", "/portal/api/me", null).assertError(401, "unauthorized");
        assertThat(API.adminGet("/admin/endpoints/" + deltaEndpoint)
                        .path("enabled")
                        .asBoolean())
                .isFalse();
        API.producer("POST", "/outbox", event("delta")).assertError(422, "tenant_disabled");
        API.admin("POST", "/admin/tenants/delta/portal-access", Map.of()).assertError(422, "tenant_disabled");
        API.admin("PATCH", "/admin/tenants/delta", Map.of("enabled", true));
        assertThat(API.adminGet("/admin/endpoints/" + deltaEndpoint)
                        .path("enabled")
                        .asBoolean())
                .as("enabling the tenant enables what its disabling stopped")
                .isTrue();
        API.producer("POST", "/outbox", event("nobody")).assertError(422, "unknown_tenant");
    }

    @Test
    void idempotencyKeysArePerTenantThroughTheApiAndTheLibrary() throws Exception {
        Answer alpha = withKey("same-key", event("alpha"));
        Answer beta = withKey("same-key", event("beta"));
        assertThat(List.of(alpha.status(), beta.status())).containsExactly(202, 202);
        assertThat(alpha.text("id")).isNotEqualTo(beta.text("id"));
        Answer again = withKey("same-key", event("alpha"));
        assertThat(again.status()).isEqualTo(200);
        assertThat(again.text("id")).isEqualTo(alpha.text("id"));

        OutboxEvent forBeta = new OutboxEvent("order.created", "order", "lib-1", "{}").forTenant("beta");
        try (Handle handle = API.jdbi().open()) {
            Connection connection = handle.getConnection();
            IdempotentEnqueue first = JdbcOutbox.enqueueIdempotent(connection, forBeta, "lib-key", "h1");
            IdempotentEnqueue operators = JdbcOutbox.enqueueIdempotent(
                    connection, new OutboxEvent("order.created", "order", "lib-1", "{}"), "lib-key", "h1");
            IdempotentEnqueue conflicting =
                    JdbcOutbox.enqueueIdempotent(connection, forBeta, "lib-key", "another body");
            assertThat(first.created()).isTrue();
            assertThat(operators.created())
                    .as("the operator's key space is its own")
                    .isTrue();
            assertThat(conflicting.conflict()).isTrue();
            assertThat(conflicting.id()).isEqualTo(first.id());
        }
    }

    private static Answer withKey(String key, Object body) {
        return Answer.of(API.request("/outbox", TestApp.PRODUCER_TOKEN)
                .header("Idempotency-Key", key)
                .post(Entity.json(body)));
    }

    private static String link(String tenant) {
        return API.admin("POST", "/admin/tenants/" + tenant + "/portal-access", Map.of())
                .text("token");
    }

    private static String httpMethod(Method method) {
        return Arrays.stream(method.getAnnotations())
                .map(a -> a.annotationType().getAnnotation(HttpMethod.class))
                .filter(h -> h != null)
                .map(HttpMethod::value)
                .findFirst()
                .orElse(null);
    }

    private static List<String> ids(JsonNode array) {
        return StreamSupport.stream(array.spliterator(), false)
                .map(n -> n.path("id").asText())
                .toList();
    }

    private static String endpoint(String tenant) {
        Answer created = API.admin(
                "POST",
                "/admin/endpoints",
                Map.of(
                        "name",
                        "hooks",
                        "url",
                        RECEIVER.url("/" + tenant),
                        "tenant",
                        tenant,
                        "eventTypes",
                        List.of("order.*")));
        assertThat(created.status()).as(created.body().toString()).isEqualTo(201);
        return created.text("id");
    }

    private static Map<String, Object> event(String tenant) {
        return Map.of(
                "eventType",
                "order.created",
                "aggregateType",
                "order",
                "aggregateId",
                tenant + "-1",
                "payload",
                Map.of("for", tenant),
                "tenant",
                tenant);
    }

    private static List<JsonNode> deliveries(String tenant, String status) {
        return StreamSupport.stream(
                        API.adminGet("/admin/tenants/" + tenant + "/deliveries")
                                .path("items")
                                .spliterator(),
                        false)
                .filter(d -> d.path("status").asText().equals(status))
                .toList();
    }

    private static Answer portal(String token, String method, String path, Object body) {
        var request = API.request(path, token);
        return Answer.of(body == null ? request.method(method) : request.method(method, Entity.json(body)));
    }
}
