package dev.relaybox.service.outbound;

import static dev.relaybox.service.api.ResourceTests.ADMIN_TOKEN;
import static dev.relaybox.service.api.ResourceTests.PRODUCER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.activities.outbound.AddressPolicy;
import dev.relaybox.activities.outbound.EndpointUrlPolicy;
import dev.relaybox.service.api.ResourceTests;
import dev.relaybox.service.api.ResourceTests.Answer;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TestDatabase;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.dropwizard.testing.junit5.ResourceExtension;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every refusal of {@code /admin/endpoints}, against the real store, with nothing written by a refused request. */
@ExtendWith(DropwizardExtensionsSupport.class)
class EndpointsResourceTest {
    static final Jdbi JDBI = TestDatabase.fresh();
    /** example.com is public (a documentation address); IP literals are themselves. No DNS is asked. */
    static final EndpointUrlPolicy URL_POLICY = new EndpointUrlPolicy(
            AddressPolicy.publicOnly(),
            host -> List.of(InetAddress.getByName(host.equals("example.com") ? "93.184.215.14" : host)));

    static final ResourceExtension RESOURCES =
            ResourceTests.extension(new EndpointsResource(new Endpoints(JDBI, URL_POLICY, Duration.ofHours(1), 8)));

    @Test
    void refusesInvalidControlsWithTheOneErrorShapeAndCreatesNothing() {
        assertThat(create("bad-rate", Map.of("rateLimit", -1))).satisfies(a -> assertError(a, 400, "invalid_request"));
        assertThat(create("bad-format", Map.of("payloadFormat", "xml")))
                .satisfies(a -> assertError(a, 400, "invalid_request"));
        assertThat(create("bad-burst", Map.of("burst", 5))).satisfies(a -> assertError(a, 422, "invalid_controls"));
        // One request in 10^300 seconds holds every delivery for ever: a limit that small is a mistake, not a limit.
        assertThat(create("bad-tiny-rate", Map.of("rateLimit", 1e-300)))
                .satisfies(a -> assertError(a, 422, "invalid_controls"));
        assertThat(create("bad-slots", Map.of("maxInFlight", "many")))
                .satisfies(a -> assertError(a, 400, "invalid_json"));
        assertThat(create("bad name!", Map.of())).satisfies(a -> assertError(a, 400, "invalid_request"));

        assertThat(names()).doesNotContain("bad-rate", "bad-format", "bad-burst", "bad-slots", "bad name!");
    }

    @Test
    void refusesAPrivateNetworkUrlAndAMalformedSecret() {
        Map<String, Object> privateUrl = body("private", Map.of());
        privateUrl.put("url", "http://127.0.0.1:9/hooks");
        assertError(call("POST", "/admin/endpoints", privateUrl), 422, "url_refused");
        assertError(create("short-secret", Map.of("secret", "whsec_c2hvcnQ=")), 422, "invalid_secret");
        assertError(
                create("no-prefix", Map.of("secret", "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0")), 422, "invalid_secret");

        assertThat(names()).doesNotContain("private", "short-secret", "no-prefix");
    }

    @Test
    void refusesABadFilterOrHeaderWithItsReasonAndWritesNothing() {
        assertError(
                create("bad-op", Map.of("filter", Map.of("path", "/amount", "matches", "1.*"))), 422, "invalid_filter");
        assertError(create("bad-path", Map.of("filter", Map.of("path", "amount", "gt", 1))), 422, "invalid_filter");
        for (String reserved : List.of("webhook-signature", "Webhook-Id", "Content-Type", "relaybox-partner")) {
            assertError(create("reserved", Map.of("headers", Map.of(reserved, "x"))), 422, "invalid_headers");
        }
        assertError(create("bad-name", Map.of("headers", Map.of("X Key", "x"))), 422, "invalid_headers");
        Answer injected = create("injected", Map.of("headers", Map.of("X-Key", "a\r\nX-Evil: 1")));
        assertError(injected, 422, "invalid_headers");
        assertThat(injected.body().path("reason").asText()).doesNotContain("Evil");
        assertThat(names()).doesNotContain("bad-op", "bad-path", "reserved", "bad-name", "injected");

        Map<String, Object> filter = Map.of("path", "/amount", "gte", 100);
        String id = create("filtered", Map.of("filter", filter, "headers", Map.of("X-Key", "k")))
                .body()
                .path("id")
                .asText();
        assertError(
                call(
                        "PATCH",
                        "/admin/endpoints/" + id,
                        Map.of("url", "https://example.com/moved", "filter", Map.of("any", List.of()))),
                422,
                "invalid_filter");
        assertError(
                call("PATCH", "/admin/endpoints/" + id, Map.of("headers", Map.of("webhook-timestamp", "0"))),
                422,
                "invalid_headers");
        Answer kept = call("GET", "/admin/endpoints/" + id, null);
        assertThat(kept.body().path("url").asText()).isEqualTo("https://example.com/filtered");
        assertThat(kept.body().path("filter").path("gte").asInt()).isEqualTo(100);
        assertThat(kept.body().path("headers").path("X-Key").asText()).isEqualTo("••••");
    }

    @Test
    void aSecondEndpointWithTheSameNameIsAConflict() {
        assertThat(create("twice", Map.of()).status()).isEqualTo(201);

        assertError(create("twice", Map.of()), 409, "endpoint_exists");
        assertThat(names().stream().filter("twice"::equals)).hasSize(1);
    }

    @Test
    void changesToAMissingEndpointOrInvalidChangesAreRefusedAndLeaveItAsItWas() {
        assertError(
                call("PATCH", "/admin/endpoints/" + UUID.randomUUID(), Map.of("ordered", true)),
                404,
                "endpoint_not_found");
        assertError(call("GET", "/admin/endpoints/not-a-uuid", null), 404, "not_found");
        String id = create("patched", Map.of()).body().path("id").asText();

        assertError(call("PATCH", "/admin/endpoints/" + id, Map.of("burst", 3)), 422, "invalid_controls");
        assertError(call("PATCH", "/admin/endpoints/" + id, Map.of("rateLimit", 0.0001)), 422, "invalid_controls");
        assertError(
                call("PATCH", "/admin/endpoints/" + id, Map.of("url", "https://example.com/moved", "maxInFlight", -2)),
                400,
                "invalid_request");
        assertError(
                call("PATCH", "/admin/endpoints/" + id, Map.of("url", "http://10.0.0.1/hooks")), 422, "url_refused");
        assertError(call("PATCH", "/admin/endpoints/" + id, "null"), 400, "invalid_request");

        Answer unchanged = call("GET", "/admin/endpoints/" + id, null);
        assertThat(unchanged.body().path("url").asText()).isEqualTo("https://example.com/patched");
        assertThat(unchanged.body().path("controls").path("burst").isNull()).isTrue();
        assertThat(unchanged.body().path("controls").path("maxInFlight").isNull())
                .isTrue();
    }

    @Test
    void reEnablingClosesTheCircuitItOpenedWhileFailing() {
        String id = create("reenabled", Map.of()).body().path("id").asText();
        UUID endpointId = UUID.fromString(id);
        JDBI.useHandle(h -> h.execute("""
                INSERT INTO endpoint_state (endpoint_id, circuit, consecutive_failures, opened_at)
                VALUES (?, 'OPEN', 7, now())""", endpointId));
        JDBI.useExtension(EndpointStore.class, store -> store.setEnabled(endpointId, false, "failing"));
        assertThat(call("GET", "/admin/endpoints/" + id, null)
                        .body()
                        .path("health")
                        .path("circuit")
                        .asText())
                .isEqualTo("open");

        Answer enabled = call("PATCH", "/admin/endpoints/" + id, Map.of("enabled", true));

        assertThat(enabled.status()).isEqualTo(200);
        assertThat(enabled.body().path("enabled").asBoolean()).isTrue();
        assertThat(enabled.body().path("health").path("circuit").asText()).isEqualTo("closed");
        assertThat(enabled.body().path("health").path("consecutiveFailures").asInt())
                .isZero();
    }

    @Test
    void aBrokerDestinationIsShownWithoutItsPasswordAndSealedWhereItIsStored() {
        Map<String, Object> body = body("orders-queue", Map.of("destination", rabbit("orders", "p-456")));
        body.put("url", "amqp://example.com/%2F");

        Answer created = call("POST", "/admin/endpoints", body);

        assertThat(created.status()).as(created.body().toString()).isEqualTo(201);
        assertThat(created.body().path("destination").path("type").asText()).isEqualTo("rabbitmq");
        assertThat(created.body().path("destination").path("exchange").asText()).isEqualTo("orders");
        assertThat(created.body().path("destination").path("username").asText()).isEqualTo("relaybox");
        assertThat(created.body().toString()).doesNotContain("p-456");
        String id = created.body().path("id").asText();
        assertThat(call("GET", "/admin/endpoints/" + id, null).body().toString())
                .contains("\"exchange\":\"orders\"")
                .doesNotContain("p-456");
        String stored = JDBI.withHandle(h -> h.createQuery("SELECT destination FROM endpoints WHERE id = :id")
                .bind("id", UUID.fromString(id))
                .mapTo(String.class)
                .one());
        assertThat(stored).doesNotContain("p-456").doesNotContain("orders");

        Answer changed = call("PATCH", "/admin/endpoints/" + id, Map.of("destination", rabbit("orders-v2", "p-789")));
        assertThat(changed.status()).as(changed.body().toString()).isEqualTo(200);
        assertThat(changed.body().path("destination").path("exchange").asText()).isEqualTo("orders-v2");
        assertThat(changed.body().toString()).doesNotContain("p-789");
    }

    @Test
    void aBrokerUrlNeedsItsDestinationAndADestinationItsBrokerUrl() {
        Map<String, Object> amqpWithout = body("amqp-alone", Map.of());
        amqpWithout.put("url", "amqp://example.com/%2F");
        assertError(call("POST", "/admin/endpoints", amqpWithout), 422, "url_refused");
        assertError(create("http-with", Map.of("destination", rabbit("orders", "p"))), 422, "url_refused");
        Map<String, Object> privateBroker = body("private-broker", Map.of("destination", rabbit("orders", "p")));
        privateBroker.put("url", "amqp://127.0.0.1:5672/%2F");
        assertError(call("POST", "/admin/endpoints", privateBroker), 422, "url_refused");
        Map<String, Object> passwordAlone = new HashMap<>(rabbit("orders", "p"));
        passwordAlone.remove("username");
        Map<String, Object> halfCredentials = body("half", Map.of("destination", passwordAlone));
        halfCredentials.put("url", "amqp://example.com/%2F");
        assertError(call("POST", "/admin/endpoints", halfCredentials), 422, "destination_invalid");
        Map<String, Object> stray = body("stray", Map.of("destination", Map.of("type", "kafka", "exchange", "x")));
        stray.put("url", "kafka://example.com:9092");
        assertError(call("POST", "/admin/endpoints", stray), 422, "destination_invalid");
        Map<String, Object> pubSub = body("pubsub", Map.of("destination", Map.of("type", "pubsub", "topic", "x")));
        pubSub.put("url", "kafka://example.com:9092");
        assertError(call("POST", "/admin/endpoints", pubSub), 400, "invalid_request");
        Map<String, Object> kafkaOnAmqp =
                body("kafka-on-amqp", Map.of("destination", Map.of("type", "kafka", "topic", "x")));
        kafkaOnAmqp.put("url", "amqp://example.com/%2F");
        assertError(call("POST", "/admin/endpoints", kafkaOnAmqp), 422, "url_refused");

        assertThat(names())
                .doesNotContain(
                        "amqp-alone", "http-with", "private-broker", "half", "stray", "pubsub", "kafka-on-amqp");
    }

    @Test
    void kafkaAndSqsDestinationsAreShownWithoutTheirSecrets() {
        Map<String, Object> kafka = body(
                "orders-topic",
                Map.of(
                        "destination",
                        Map.of(
                                "type",
                                "kafka",
                                "topic",
                                "orders",
                                "username",
                                "relaybox",
                                "password",
                                "k-456",
                                "saslMechanism",
                                "SCRAM-SHA-512")));
        kafka.put("url", "kafka+ssl://example.com:9093");
        Answer topic = call("POST", "/admin/endpoints", kafka);
        assertThat(topic.status()).as(topic.body().toString()).isEqualTo(201);
        assertThat(topic.body().path("destination").path("topic").asText()).isEqualTo("orders");
        assertThat(topic.body().path("destination").path("summary").asText()).isEqualTo("Kafka topic orders");
        assertThat(topic.body().path("destination").path("saslMechanism").asText())
                .isEqualTo("SCRAM-SHA-512");
        assertThat(topic.body().path("destination").has("exchange"))
                .as("no other type's settings")
                .isFalse();
        assertThat(topic.body().toString()).doesNotContain("k-456");

        Map<String, Object> sqs = body(
                "orders-sqs",
                Map.of(
                        "destination",
                        Map.of(
                                "type",
                                "sqs",
                                "region",
                                "eu-west-1",
                                "accessKeyId",
                                "AKIAEXAMPLE",
                                "secretAccessKey",
                                "s-789")));
        sqs.put("url", "https://example.com/123456789012/orders.fifo");
        Answer queue = call("POST", "/admin/endpoints", sqs);
        assertThat(queue.status()).as(queue.body().toString()).isEqualTo(201);
        assertThat(queue.body().path("destination").path("region").asText()).isEqualTo("eu-west-1");
        assertThat(queue.body().path("destination").path("accessKeyId").asText())
                .isEqualTo("AKIAEXAMPLE");
        assertThat(queue.body().toString()).doesNotContain("s-789");
    }

    private static Map<String, Object> rabbit(String exchange, String password) {
        return Map.of(
                "type", "rabbitmq",
                "exchange", exchange,
                "routingKey", "order.events",
                "username", "relaybox",
                "password", password);
    }

    @Test
    void onlyAdminsMayListOrChangeEndpoints() {
        assertError(ResourceTests.call(RESOURCES, "GET", "/admin/endpoints", null, null), 401, "unauthorized");
        assertError(ResourceTests.call(RESOURCES, "GET", "/admin/endpoints", "wrong", null), 401, "unauthorized");
        assertError(
                ResourceTests.call(RESOURCES, "POST", "/admin/endpoints", PRODUCER_TOKEN, body("sneaky", Map.of())),
                403,
                "forbidden");
        assertThat(names()).doesNotContain("sneaky");
    }

    private static Answer create(String name, Map<String, Object> extra) {
        return call("POST", "/admin/endpoints", body(name, extra));
    }

    private static Map<String, Object> body(String name, Map<String, Object> extra) {
        Map<String, Object> body = new HashMap<>(extra);
        body.put("name", name);
        body.put("url", "https://example.com/" + name);
        body.put("eventTypes", List.of("order.*"));
        return body;
    }

    private static List<String> names() {
        return call("GET", "/admin/endpoints", null).body().findValuesAsText("name");
    }

    private static Answer call(String method, String path, Object body) {
        return ResourceTests.call(RESOURCES, method, path, ADMIN_TOKEN, body);
    }

    private static void assertError(Answer answer, int status, String error) {
        assertThat(answer.status()).as(answer.body().toString()).isEqualTo(status);
        assertThat(answer.error()).isEqualTo(error);
        assertThat(answer.body().path("reason").asText()).isNotBlank();
    }
}
