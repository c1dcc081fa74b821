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
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** After a receiver's outage, recovering its endpoint resends what failed in the window, once, in outbox order. */
@ExtendWith(DropwizardExtensionsSupport.class)
class EndpointRecoveryTest {
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP =
            TestApp.extension(ConfigOverride.config("delivery.jitter", "0"));
    static final Api API = new Api(APP);

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void resendsFailuresInTheWindowOnceAndNothingElse() {
        AtomicBoolean broken = new AtomicBoolean(true);
        // While broken, the receiver refuses events marked to fail with a 400, which dead-letters at once.
        RECEIVER.respond(body -> broken.get() && body.path("data").path("fail").asBoolean() ? 400 : 200);
        String endpointId = API.admin(
                        "POST",
                        "/admin/endpoints",
                        Map.of(
                                "name",
                                "recovering",
                                "url",
                                RECEIVER.url("/recovering"),
                                "eventTypes",
                                List.of("order.*"),
                                "ordered",
                                true))
                .text("id");

        String before = produce("B-1", true);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> deliveries("dead_lettered").size() == 1);
        Instant since = Instant.now();
        String first = produce("R-1", true);
        String second = produce("R-1", true);
        String delivered = produce("OK-1", false);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> deliveries("dead_lettered").size() == 3);
        await().atMost(Duration.ofSeconds(30))
                .until(() -> deliveries("delivered").size() == 1);

        broken.set(false);
        Answer recovered = recover(endpointId, since.toString());
        assertThat(recovered.status()).isEqualTo(200);
        assertThat(recovered.body().path("recovered").asInt()).isEqualTo(2);
        assertThat(recovered.body().path("remaining").asInt()).isZero();
        assertThat(recover(endpointId, since.toString())
                        .body()
                        .path("recovered")
                        .asInt())
                .as("a recovered delivery is not resent again")
                .isZero();

        await().atMost(Duration.ofSeconds(60))
                .until(() -> deliveries("delivered").size() == 3);
        List<String> resent = RECEIVER.received("/recovering").stream()
                .filter(r -> r.status() == 200)
                .map(r -> r.header("webhook-id"))
                .filter(id -> !id.equals(delivered))
                .toList();
        assertThat(resent).containsExactly(first, second);
        assertThat(RECEIVER.received("/recovering"))
                .extracting(r -> r.header("webhook-id"))
                .containsExactlyInAnyOrder(before, first, second, delivered, first, second);
        assertThat(deliveries("dead_lettered"))
                .extracting(d -> d.path("outboxId").asText())
                .containsExactly(before);
    }

    private static Answer recover(String endpointId, String since) {
        return API.admin("POST", "/admin/endpoints/" + endpointId + "/recover", Map.of("since", since));
    }

    private static String produce(String aggregateId, boolean fail) {
        Answer answer = API.enqueue("order.shipped", "order", aggregateId, Map.of("id", aggregateId, "fail", fail));
        assertThat(answer.status()).isEqualTo(202);
        return answer.text("id");
    }

    private static List<JsonNode> deliveries(String status) {
        List<JsonNode> items = new ArrayList<>();
        API.adminGet("/admin/deliveries?status=" + status + "&endpoint=recovering")
                .path("items")
                .forEach(items::add);
        return items;
    }
}
