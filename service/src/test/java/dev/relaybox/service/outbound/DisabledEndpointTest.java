package dev.relaybox.service.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.activities.outbound.TestReceiver.Reply;
import dev.relaybox.service.Api;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RelayboxConfiguration;
import dev.relaybox.service.TestApp;
import io.dropwizard.testing.ConfigOverride;
import io.dropwizard.testing.junit5.DropwizardAppExtension;
import io.dropwizard.testing.junit5.DropwizardExtensionsSupport;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A 410 disables an endpoint; what arrives for it meanwhile is kept and delivered once it is enabled again. */
@ExtendWith(DropwizardExtensionsSupport.class)
class DisabledEndpointTest {
    static final TestReceiver RECEIVER = new TestReceiver();
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ConfigOverride.config("delivery.retryDelays", "1s,1s"), ConfigOverride.config("delivery.jitter", "0"));
    static final Api API = new Api(APP);

    @AfterAll
    static void closeReceiver() {
        RECEIVER.close();
    }

    @Test
    void eventsForAnEndpointDisabledByGoneAreKeptAndDeliveredWhenItIsEnabledAgain() {
        Answer created = API.admin(
                "POST",
                "/admin/endpoints",
                Map.of("name", "moving", "url", RECEIVER.url("/moving"), "eventTypes", List.of("order.*")));
        String endpointId = created.text("id");
        RECEIVER.script("/moving", Reply.of(410), Reply.of(200));

        String gone = produce("G-1");
        await().atMost(Duration.ofSeconds(30))
                .until(() -> !API.adminGet("/admin/endpoints/" + endpointId)
                        .path("enabled")
                        .asBoolean());
        await().atMost(Duration.ofSeconds(30))
                .until(() -> deliveries("dead_lettered").size() == 1);

        List<String> whileDisabled = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            whileDisabled.add(produce("D-" + i));
        }
        List<JsonNode> paused =
                await().atMost(Duration.ofSeconds(30)).until(() -> deliveries("paused"), items -> items.size() == 3);
        assertThat(paused)
                .extracting(d -> d.path("outboxId").asText())
                .containsExactlyInAnyOrderElementsOf(whileDisabled);
        assertThat(RECEIVER.received("/moving")).hasSize(1);

        assertThat(API.admin("PATCH", "/admin/endpoints/" + endpointId, Map.of("enabled", true))
                        .status())
                .isEqualTo(200);
        String deadLetter = API.adminGet("/admin/dead-letters")
                .path("items")
                .get(0)
                .path("id")
                .asText();
        assertThat(API.admin("POST", "/admin/dead-letters/" + deadLetter + "/replay", Map.of())
                        .status())
                .isEqualTo(200);

        List<String> all = new ArrayList<>(whileDisabled);
        all.add(gone);
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(RECEIVER.received("/moving"))
                        .extracting(r -> r.header("webhook-id"))
                        .containsAll(all));
        await().atMost(Duration.ofSeconds(30))
                .until(() -> deliveries("delivered").size() == 4);
        assertThat(deliveries("paused")).isEmpty();
    }

    private static String produce(String aggregateId) {
        Answer answer = API.enqueue("order.shipped", "order", aggregateId, Map.of("id", aggregateId));
        assertThat(answer.status()).isEqualTo(202);
        return answer.text("id");
    }

    private static List<JsonNode> deliveries(String status) {
        List<JsonNode> items = new ArrayList<>();
        API.adminGet("/admin/deliveries?status=" + status + "&endpoint=moving")
                .path("items")
                .forEach(items::add);
        return items;
    }
}
