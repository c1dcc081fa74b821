package dev.relaybox.service.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.FaultFigures;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import dev.relaybox.service.config.AuthFactory;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import jakarta.ws.rs.client.Entity;
import jakarta.ws.rs.core.MediaType;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * 70 receivers that never finish answering (more than the worker's 64 activity slots), plus one that never
 * answers at all, must not stop a fast endpoint's deliveries or the processing of inbound webhooks. Real HTTP
 * on loopback, the whole application; nothing about timings is asserted, only who got through.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class SlowReceiversTest {
    static final int SLOW_ENDPOINTS = 70;
    static final TestReceiver SLOW =
            new TestReceiver().trickle("/trickle/", Duration.ofSeconds(1)).silence("/silent/");
    static final TestReceiver FAST = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ConfigOverride.config("delivery.requestTimeout", "3s"),
            ConfigOverride.config("delivery.retryDelays", "1s,1s,1s,1s,1s,1s,1s,1s"),
            ConfigOverride.config("delivery.jitter", "0"));
    static final Api API = new Api(APP);

    @AfterAll
    static void closeReceivers() {
        SLOW.close();
        FAST.close();
    }

    @Test
    void fastEndpointAndInboundWebhooksKeepFlowingWhileSeventySlowReceiversStall() {
        for (int i = 0; i < SLOW_ENDPOINTS; i++) {
            // Headers at once, then a byte a second: no read ever waits long enough to time out on its own.
            endpoint("slow-" + i, SLOW.url("/trickle/" + i), "slow.ping");
        }
        endpoint("silent", SLOW.url("/silent/1"), "slow.ping");
        endpoint("fast", FAST.url("/fast"), "fast.ping");
        produce("slow.ping", "s-1");
        await().atMost(Duration.ofSeconds(60)).until(() -> SLOW.requests() >= 64);

        List<String> fastIds = new ArrayList<>();
        List<String> orders = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            fastIds.add(produce("fast.ping", "f-" + i));
            String order = "slow-test-" + i + "-" + System.nanoTime();
            orders.add(order);
            assertThat(sendInbound(API, "evt-" + order, order).status()).isEqualTo(200);
        }

        await().atMost(Duration.ofSeconds(90)).untilAsserted(() -> {
            assertThat(FAST.received("/fast"))
                    .extracting(r -> r.header("webhook-id"))
                    .containsAll(fastIds);
            assertThat(orders)
                    .allSatisfy(order -> assertThat(API.producer("GET", "/entities/order/" + order, null)
                                    .text("state"))
                            .isEqualTo("created"));
        });
        Jdbi jdbi = API.jdbi();
        int slowDelivered =
                jdbi.withHandle(h -> h.createQuery("""
                SELECT count(*) FROM deliveries d JOIN endpoints e ON e.id = d.endpoint_id
                 WHERE e.name <> 'fast' AND d.status = 'DELIVERED'""").mapTo(int.class).one());
        assertThat(slowDelivered).as("slow receivers are still stalled").isZero();
        assertThat(SLOW.holding()).as("slow receivers still hold requests").isPositive();

        // The events that must flow beside the stalled ones: the slow receivers' own deliveries are the fault here.
        List<String> in = new ArrayList<>();
        fastIds.forEach(id -> in.add(FaultFigures.delivery(id, "fast")));
        orders.forEach(order -> in.add("evt-" + order));
        List<String> seen = new ArrayList<>(FaultFigures.appliedInbound(jdbi));
        FAST.received("/fast").stream()
                .filter(r -> r.status() == 200)
                .forEach(r -> seen.add(FaultFigures.delivery(r.header("webhook-id"), "fast")));
        FaultFigures.count(
                        SLOW_ENDPOINTS + " slow receivers and a silent one beside a fast endpoint and inbound events",
                        getClass(),
                        in,
                        seen,
                        FaultFigures.deadLetters(jdbi))
                .print()
                .assertTargets();
    }

    private static void endpoint(String name, String url, String eventType) {
        Answer created = API.admin(
                "POST", "/admin/endpoints", Map.of("name", name, "url", url, "eventTypes", List.of(eventType)));
        assertThat(created.status()).isEqualTo(201);
    }

    private static String produce(String eventType, String aggregateId) {
        Answer answer = API.enqueue(eventType, "ping", aggregateId, Map.of("n", aggregateId));
        assertThat(answer.status()).isEqualTo(202);
        return answer.text("id");
    }

    /** Posts an {@code order.created} webhook from the example partner "shop", signed as it signs. */
    static Answer sendInbound(Api api, String eventId, String orderId) {
        String body = "{\"type\": \"order.created\", \"data\": {\"orderId\": \"" + orderId + "\"}}";
        long timestamp = Instant.now().getEpochSecond();
        return Answer.of(api.request("/webhooks/shop", null)
                .header("webhook-id", eventId)
                .header("webhook-timestamp", Long.toString(timestamp))
                .header("webhook-signature", "v1," + sign(eventId + "." + timestamp + "." + body))
                .post(Entity.entity(body, MediaType.APPLICATION_JSON)));
    }

    private static String sign(String content) {
        try {
            String secret = AuthFactory.DEV_PARTNER_SECRET;
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(new SecretKeySpec(Base64.getDecoder().decode(secret.substring("whsec_".length())), "HmacSHA256"));
            return Base64.getEncoder().encodeToString(mac.doFinal(content.getBytes(StandardCharsets.UTF_8)));
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
