package dev.relaybox.service;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.temporal.TemporalDevServer;
import dev.relaybox.service.temporal.TemporalSetup;
import dev.relaybox.store.SecretBox;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.DropwizardTestSupport;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowClientOptions;
import io.temporal.serviceclient.WorkflowServiceStubs;
import io.temporal.serviceclient.WorkflowServiceStubsOptions;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.client.Invocation;
import jakarta.ws.rs.core.MediaType;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Relaybox (every role, embedded PostgreSQL) on the real Temporal server, whose namespace is set up as {@code
 * relaybox temporal setup} does it. An external Temporal makes this production: the application has its own tokens
 * and partner secrets, and allows the test's receiver on loopback explicitly. Besides the example partner "shop" it
 * has a second one, "market", signing the same way with its own secret.
 */
public final class RelayboxOnRealTemporal implements AutoCloseable {
    public static final String ADMIN_TOKEN = "real-temporal-admin-token-0123456789abcdef";
    public static final String PRODUCER_TOKEN = "real-temporal-producer-token-0123456789abcdef";
    private static final Map<String, String> SECRETS = Map.of(
            "shop", "whsec_cmVhbC10ZW1wb3JhbC1zaG9wLXNlY3JldC0wMDAx",
            "market", "whsec_cmVhbC10ZW1wb3JhbC1tYXJrZXQtc2VjcmV0LTAx");

    private final TemporalDevServer temporal;
    private final WorkflowServiceStubs stubs;
    private final DropwizardTestSupport<RelayboxConfiguration> app;
    private final Api api;

    private RelayboxOnRealTemporal(
            TemporalDevServer temporal, WorkflowServiceStubs stubs, DropwizardTestSupport<RelayboxConfiguration> app) {
        this.temporal = temporal;
        this.stubs = stubs;
        this.app = app;
        this.api = new Api(app);
    }

    /**
     * Starts the server ({@code server} adjusts its options: a lowered limit), sets its default namespace up, then
     * boots Relaybox on it with {@code config} overriding config.yml (one value per key; these win over the
     * fixture's own).
     */
    public static RelayboxOnRealTemporal start(
            String name, UnaryOperator<TemporalDevServer.Options> server, Map<String, String> config) {
        TemporalDevServer temporal = RealTemporal.start(name, server);
        WorkflowServiceStubs stubs = WorkflowServiceStubs.newServiceStubs(WorkflowServiceStubsOptions.newBuilder()
                .setTarget(temporal.address())
                .build());
        try {
            try (TemporalSetup setup = new TemporalSetup(stubs, "default", Duration.ofSeconds(30))) {
                setup.run(Duration.ofDays(1));
            }
            Map<String, String> overrides = new LinkedHashMap<>();
            overrides.put("temporal.address", temporal.address());
            overrides.put("auth.adminTokens", ADMIN_TOKEN);
            overrides.put("auth.producerTokens", PRODUCER_TOKEN);
            overrides.put("secrets.key", SecretBox.newKey());
            overrides.put("delivery.allowedPrivateNetworks", "127.0.0.0/8");
            // Every delivery keeps to its schedule: none waits for circuit probes.
            overrides.put("delivery.circuitBreaker.failureThreshold", "0");
            overrides.put("partners.shop.signature.secrets", SECRETS.get("shop"));
            overrides.put("partners.market.signature.scheme", "standard-webhooks");
            overrides.put("partners.market.signature.secrets", SECRETS.get("market"));
            overrides.put("partners.market.signature.toleranceSeconds", "300");
            overrides.put("partners.market.eventId.header", "webhook-id");
            overrides.put("partners.market.eventType.pointer", "/type");
            overrides.put("partners.market.aggregateId.pointer", "/data/orderId");
            overrides.put("partners.market.aggregateType", "order");
            overrides.put("partners.market.maxBodySize", "256KiB");
            overrides.putAll(config);
            DropwizardTestSupport<RelayboxConfiguration> app = TestApp.support(
                    TestApp.freshDataDirectory(),
                    TestApp.freePort(),
                    overrides.entrySet().stream()
                            .map(e -> ConfigOverride.config(e.getKey(), e.getValue()))
                            .toArray(ConfigOverride[]::new));
            app.before();
            return new RelayboxOnRealTemporal(temporal, stubs, app);
        } catch (Exception e) {
            stubs.shutdownNow();
            temporal.close();
            throw e instanceof RuntimeException runtime ? runtime : new IllegalStateException(e);
        }
    }

    public Api api() {
        return api;
    }

    public TemporalDevServer temporal() {
        return temporal;
    }

    /** A client of the same server and namespace, as an operator's tools see it. */
    public WorkflowClient client() {
        return WorkflowClient.newInstance(
                stubs,
                WorkflowClientOptions.newBuilder().setNamespace("default").build());
    }

    public WorkflowServiceStubs stubs() {
        return stubs;
    }

    /** Creates an endpoint through the admin API, failing the test with the answer when it is refused. */
    public void createEndpoint(String name, String url, String... eventTypes) {
        Answer answer =
                admin("POST", "/admin/endpoints", Map.of("name", name, "url", url, "eventTypes", List.of(eventTypes)));
        assertThat(answer.status())
                .as("creating endpoint %s: %s", name, answer.body())
                .isEqualTo(201);
    }

    public Answer admin(String method, String path, Object body) {
        return send(api.request(path, ADMIN_TOKEN), method, body);
    }

    public Answer producer(String method, String path, Object body) {
        return send(api.request(path, PRODUCER_TOKEN), method, body);
    }

    private static Answer send(Invocation.Builder request, String method, Object body) {
        return Answer.of(body == null ? request.method(method) : request.method(method, Entity.json(body)));
    }

    /** A webhook from {@code partner} ("shop" or "market"), signed per Standard Webhooks with its secret. */
    public Answer webhook(String partner, String eventId, String body) {
        long timestamp = Instant.now().getEpochSecond();
        return Answer.of(api.request("/webhooks/" + partner, null)
                .header("webhook-id", eventId)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", ShopWebhooks.signature(SECRETS.get(partner), eventId, timestamp, body))
                .post(Entity.entity(body, MediaType.APPLICATION_JSON)));
    }

    /** An order event as both partners send them. */
    public Answer orderEvent(String partner, String eventId, String type, String orderId) {
        return webhook(partner, eventId, "{\"type\": \"" + type + "\", \"data\": {\"orderId\": \"" + orderId + "\"}}");
    }

    @Override
    public void close() {
        try {
            app.after();
        } finally {
            stubs.shutdownNow();
            temporal.close();
        }
    }
}
