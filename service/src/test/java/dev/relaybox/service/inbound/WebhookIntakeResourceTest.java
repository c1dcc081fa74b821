package dev.relaybox.service.inbound;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.relaybox.service.ShopWebhooks;
import dev.relaybox.service.api.JsonErrorMappers;
import dev.relaybox.service.config.AuthFactory;
import dev.relaybox.service.config.PartnerFactory;
import dev.relaybox.store.InboxIntake;
import dev.relaybox.store.InboxStore;
import dev.relaybox.store.TestDatabase;
import io.dropwizard.jackson.Jackson;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import io.dropwizard.testing.junit5.ResourceExtension;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.client.Invocation;
import jakarta.ws.rs.core.Feature;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Every answer of {@code POST /webhooks/{partner}}, without booting the application: the resource alone in Jersey's
 * in-memory container, storing into a real PostgreSQL through {@link InboxStore}.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class WebhookIntakeResourceTest {
    static final Jdbi JDBI = TestDatabase.fresh();
    static final CountingMetrics METRICS = new CountingMetrics();
    static final String GITHUB_SECRET = "github-resource-test-secret";
    static final ResourceExtension RESOURCE = ResourceExtension.builder()
            .setRegisterDefaultExceptionMappers(false)
            .addProvider((Feature) context -> {
                JsonErrorMappers.register(context);
                return true;
            })
            .addResource(new WebhookIntakeResource(
                    JDBI.onDemand(InboxIntake.class),
                    Jackson.newObjectMapper(),
                    Map.of(
                            "shop",
                            partner("{header: webhook-id}"),
                            "bodyid",
                            partner("{pointer: /id}"),
                            "github",
                            github("{pointer: /action}", ""),
                            "github-typed",
                            github("{header: X-GitHub-Event}", "trustUnsignedHeaders: true")),
                    METRICS))
            .build();

    @Test
    void signedEventIsAcceptedAndStoredWithItsTypeAndAggregate() {
        Response response = send("shop", "evt-accept", "{\"type\": \"order.paid\", \"data\": {\"orderId\": \"42\"}}");

        assertThat(response.getStatus()).isEqualTo(200);
        JsonNode receipt = response.readEntity(JsonNode.class);
        assertThat(receipt.path("status").asText()).isEqualTo("accepted");
        Map<String, Object> row = JDBI.withHandle(h -> h.createQuery("""
                        SELECT partner_name, event_type, aggregate_type, aggregate_id, status FROM webhook_inbox
                         WHERE id = CAST(:id AS uuid)""")
                .bind("id", receipt.path("id").asText())
                .mapToMap()
                .one());
        assertThat(row)
                .containsEntry("partner_name", "shop")
                .containsEntry("event_type", "order.paid")
                .containsEntry("aggregate_type", "order")
                .containsEntry("aggregate_id", "42")
                .containsEntry("status", "RECEIVED");
    }

    @Test
    void duplicateEventAnswersOkWithTheFirstRowAndStoresOnce() {
        String body = "{\"type\": \"order.created\", \"data\": {\"orderId\": \"dup\"}}";
        JsonNode first = send("shop", "evt-dup", body).readEntity(JsonNode.class);

        Response again = send("shop", "evt-dup", body);

        assertThat(again.getStatus()).isEqualTo(200);
        JsonNode second = again.readEntity(JsonNode.class);
        assertThat(second.path("status").asText()).isEqualTo("duplicate");
        assertThat(second.path("id").asText()).isEqualTo(first.path("id").asText());
        assertThat(rows("evt-dup")).isEqualTo(1);
        assertThat(METRICS.duplicates).contains("shop");
    }

    @Test
    void sameEventIdWithADifferentBodyIsAConflictAndTheFirstBodyStays() {
        // GitHub signs the body but not X-GitHub-Delivery: a captured signed body can be sent under a future id.
        String captured = "{\"action\": \"opened\", \"repository\": {\"full_name\": \"acme/old\"}}";
        String real = "{\"action\": \"closed\", \"repository\": {\"full_name\": \"acme/new\"}}";
        assertThat(sendGithub("delivery-poisoned", captured).getStatus()).isEqualTo(200);

        Response conflict = sendGithub("delivery-poisoned", real);

        assertError(conflict, 409, "event_id_conflict");
        assertThat(rows("delivery-poisoned")).isEqualTo(1);
        String stored = JDBI.withHandle(h -> h.createQuery(
                        "SELECT payload->>'action' FROM webhook_inbox WHERE partner_event_id = 'delivery-poisoned'")
                .mapTo(String.class)
                .one());
        assertThat(stored).isEqualTo("opened");
        assertThat(METRICS.conflicts).contains("github");
        // The same body under the same id is still an ordinary duplicate.
        Response again = sendGithub("delivery-poisoned", captured);
        assertThat(again.getStatus()).isEqualTo(200);
        assertThat(again.readEntity(JsonNode.class).path("status").asText()).isEqualTo("duplicate");
    }

    @Test
    void aTypeHeaderChangedOnACapturedRequestIsAConflictNotTheRealEventsDuplicate() {
        // The type comes from X-GitHub-Event, which GitHub does not sign: sent first with another type, the captured
        // request must not make the real one a "duplicate" that is dropped.
        String body = "{\"zen\": \"Keep it logically awesome.\", \"repository\": {\"full_name\": \"acme/web\"}}";
        Response forged = sendGithubTyped("delivery-typed", "issues", body);
        assertThat(forged.getStatus()).isEqualTo(200);
        assertThat(forged.readEntity(JsonNode.class).path("status").asText()).isEqualTo("accepted");

        assertError(sendGithubTyped("delivery-typed", "push", body), 409, "event_id_conflict");
        Response resent = sendGithubTyped("delivery-typed", "issues", body);
        assertThat(resent.readEntity(JsonNode.class).path("status").asText()).isEqualTo("duplicate");
    }

    @Test
    void unknownPartnerIsNotFound() {
        assertError(send("nobody", "evt-r-partner", "{}"), 404, "unknown_partner");
        assertThat(rows("evt-r-partner")).isZero();
    }

    @Test
    void bodyThatDoesNotMatchItsSignatureIsUnauthorized() {
        String signed = "{\"type\": \"order.paid\", \"data\": {\"orderId\": \"1\"}}";
        long now = Instant.now().getEpochSecond();
        Response tampered = request("shop", "evt-r-tampered", now, signed)
                .post(Entity.entity(signed.replace("\"1\"", "\"2\""), MediaType.APPLICATION_JSON));

        assertError(tampered, 401, "invalid_signature");
        assertThat(rows("evt-r-tampered")).isZero();
    }

    @Test
    void wrongSecretStaleTimestampAndMissingSignatureAreUnauthorized() {
        String body = "{\"type\": \"order.paid\", \"data\": {\"orderId\": \"1\"}}";
        long now = Instant.now().getEpochSecond();
        String otherSecret =
                "whsec_" + Base64.getEncoder().encodeToString("another-secret-of-enough-length".getBytes());

        assertError(
                RESOURCE.target("/webhooks/shop")
                        .request()
                        .header("webhook-id", "evt-r-secret")
                        .header("webhook-timestamp", Long.toString(now))
                        .header("webhook-signature", ShopWebhooks.signature(otherSecret, "evt-r-secret", now, body))
                        .post(Entity.entity(body, MediaType.APPLICATION_JSON)),
                401,
                "invalid_signature");
        assertError(
                request("shop", "evt-r-stale", now - 3600, body).post(Entity.entity(body, MediaType.APPLICATION_JSON)),
                401,
                "invalid_signature");
        assertError(RESOURCE.target("/webhooks/shop").request().post(Entity.json(body)), 401, "invalid_signature");
        assertThat(rows("evt-r-secret") + rows("evt-r-stale")).isZero();
        assertThat(METRICS.rejections).contains("shop:invalid_signature");
    }

    @Test
    void bodyLargerThanThePartnersLimitIsTooLarge() {
        String body = "{\"type\": \"order.paid\", \"data\": {\"orderId\": \"" + "x".repeat(5000) + "\"}}";

        assertError(send("shop", "evt-r-large", body), 413, "payload_too_large");
        assertThat(rows("evt-r-large")).isZero();
    }

    @Test
    void bodyThatIsNotJsonByContentTypeIsUnsupported() {
        String body = "{\"type\": \"order.paid\", \"data\": {\"orderId\": \"1\"}}";
        long now = Instant.now().getEpochSecond();

        assertError(
                request("shop", "evt-r-text", now, body).post(Entity.entity(body, MediaType.TEXT_PLAIN)),
                415,
                "unsupported_media_type");
        assertThat(rows("evt-r-text")).isZero();
    }

    @Test
    void malformedJsonIsABadRequest() {
        assertError(send("shop", "evt-r-malformed", "not json"), 400, "invalid_json");
        assertError(send("shop", "evt-r-trailing", "{\"type\": \"order.paid\"} trailing"), 400, "invalid_json");
        assertThat(rows("evt-r-malformed") + rows("evt-r-trailing")).isZero();
    }

    @Test
    void jsonThatJacksonAcceptsButJsonbCannotStoreIsABadRequestOnEveryRetry() {
        List<String> bodies = List.of(
                "{\"type\": \"order.created\", \"data\": {\"orderId\": \"nul\", \"note\": \"a\\u0000b\"}}",
                "{\"type\": \"order.created\", \"data\": {\"orderId\": \"hi\", \"note\": \"\\ud800\"}}",
                "{\"type\": \"order.created\", \"data\": {\"orderId\": \"lo\", \"\\udc00\": 1}}",
                "{\"type\": \"order.created\", \"data\": {\"orderId\": \"trail\"}} {\"more\": 1}",
                "{\"type\": \"order.created\", \"data\": {\"orderId\": \"huge\", \"n\": 1e999999}}");
        for (int i = 0; i < bodies.size(); i++) {
            for (int retry = 0; retry < 2; retry++) {
                assertError(send("shop", "evt-r-jsonb-" + i, bodies.get(i)), 400, "invalid_json");
            }
            assertThat(rows("evt-r-jsonb-" + i)).isZero();
        }
    }

    @Test
    void eventWithoutAnEventIdOrWithAnOverlongOneIsABadRequest() {
        assertError(send("bodyid", "evt-r-noid", "{\"type\": \"order.paid\"}"), 400, "missing_event_id");
        assertError(send("bodyid", "evt-r-longid", "{\"id\": \"" + "i".repeat(501) + "\"}"), 400, "invalid_event_id");
        int stored =
                JDBI.withHandle(h -> h.createQuery("SELECT count(*) FROM webhook_inbox WHERE partner_name = 'bodyid'")
                        .mapTo(int.class)
                        .one());
        assertThat(stored).isZero();
    }

    private static void assertError(Response response, int status, String error) {
        assertThat(response.getStatus()).isEqualTo(status);
        JsonNode body = response.readEntity(JsonNode.class);
        assertThat(body.path("error").asText()).isEqualTo(error);
        assertThat(body.path("reason").asText()).isNotBlank();
    }

    private static Response send(String partner, String eventId, String body) {
        return request(partner, eventId, Instant.now().getEpochSecond(), body)
                .post(Entity.entity(body, MediaType.APPLICATION_JSON));
    }

    /** Signed for {@code signedBody} with the development secret of the example partner. */
    private static Invocation.Builder request(String partner, String eventId, long timestamp, String signedBody) {
        return RESOURCE.target("/webhooks/" + partner)
                .request()
                .header("webhook-id", eventId)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", ShopWebhooks.signature(eventId, timestamp, signedBody));
    }

    private static Response sendGithub(String delivery, String body) {
        return RESOURCE.target("/webhooks/github")
                .request()
                .header("X-GitHub-Delivery", delivery)
                .header("X-Hub-Signature-256", "sha256=" + HexFormat.of().formatHex(hmac(GITHUB_SECRET, body)))
                .post(Entity.entity(body, MediaType.APPLICATION_JSON));
    }

    private static Response sendGithubTyped(String delivery, String event, String body) {
        return RESOURCE.target("/webhooks/github-typed")
                .request()
                .header("X-GitHub-Delivery", delivery)
                .header("X-GitHub-Event", event)
                .header("X-Hub-Signature-256", "sha256=" + HexFormat.of().formatHex(hmac(GITHUB_SECRET, body)))
                .post(Entity.entity(body, MediaType.APPLICATION_JSON));
    }

    private static byte[] hmac(String secret, String body) {
        try {
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
            return mac.doFinal(body.getBytes(StandardCharsets.UTF_8));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static int rows(String eventId) {
        return JDBI.withHandle(h -> h.createQuery("SELECT count(*) FROM webhook_inbox WHERE partner_event_id = :id")
                .bind("id", eventId)
                .mapTo(int.class)
                .one());
    }

    /** The shipped example partner, signing with the development secret, with the event id found at {@code eventId}. */
    private static PartnerFactory partner(String eventId) {
        try {
            return Jackson.newObjectMapper(new YAMLFactory())
                    .readValue("""
                    signature: {scheme: standard-webhooks, secrets: %s}
                    eventId: %s
                    eventType: {pointer: /type}
                    aggregateId: {pointer: /data/orderId}
                    aggregateType: order
                    maxBodySize: 4KiB
                    """.formatted(AuthFactory.DEV_PARTNER_SECRET, eventId), PartnerFactory.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A GitHub-style partner: the body is signed, the delivery id in X-GitHub-Delivery is not, and its type comes from
     * {@code eventType}.
     */
    private static PartnerFactory github(String eventType, String trust) {
        try {
            return Jackson.newObjectMapper(new YAMLFactory())
                    .readValue("""
                    signature: {scheme: github, secrets: %s}
                    eventId: {header: X-GitHub-Delivery}
                    trustUnsignedEventIdHeader: true
                    %s
                    eventType: %s
                    aggregateId: {pointer: /repository/full_name}
                    aggregateType: order
                    maxBodySize: 4KiB
                    """.formatted(GITHUB_SECRET, trust, eventType), PartnerFactory.class);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** What the intake counted, as {@code partner} or {@code partner:reason}. */
    static final class CountingMetrics implements IntakeMetrics {
        final List<String> accepted = new ArrayList<>();
        final List<String> duplicates = new ArrayList<>();
        final List<String> rejections = new ArrayList<>();
        final List<String> conflicts = new ArrayList<>();

        @Override
        public synchronized void accepted(String partner) {
            accepted.add(partner);
        }

        @Override
        public synchronized void duplicate(String partner) {
            duplicates.add(partner);
        }

        @Override
        public synchronized void conflict(String partner) {
            conflicts.add(partner);
        }

        @Override
        public synchronized void rejected(String partner, String reason) {
            rejections.add(partner + ":" + reason);
        }
    }
}
