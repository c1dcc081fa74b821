package dev.relaybox.service.outbound;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.FaultFigures;
import dev.relaybox.activities.outbound.TestReceiver;
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

/**
 * HTTP attempts have worker slots of their own. With every one of them held by a receiver that trickles
 * bytes (and a deadline long enough that none is freed during the test), inbound webhooks are still
 * processed: they never queue behind outbound HTTP.
 */
@ExtendWith(DropwizardExtensionsSupport.class)
class InboundBesideSlowReceiversTest {
    static final int SLOTS = 8;
    static final TestReceiver SLOW =
            new TestReceiver().trickle("/trickle/", Duration.ofSeconds(1)).silence("/silent/");
    static final DropwizardAppExtension<RelayboxConfiguration> APP = TestApp.extension(
            ConfigOverride.config("temporal.maxConcurrentActivities", Integer.toString(SLOTS)),
            ConfigOverride.config("temporal.maxConcurrentHttpAttempts", Integer.toString(SLOTS)),
            ConfigOverride.config("delivery.requestTimeout", "90s"));
    static final Api API = new Api(APP);

    @AfterAll
    static void closeReceiver() {
        SLOW.close();
    }

    @Test
    void inboundWebhooksAreAppliedWhileEveryHttpSlotIsHeldBySlowReceivers() {
        for (int i = 0; i < SLOTS + 2; i++) {
            assertThat(API.admin(
                                    "POST",
                                    "/admin/endpoints",
                                    Map.of(
                                            "name",
                                            "slow-" + i,
                                            "url",
                                            SLOW.url("/trickle/" + i),
                                            "eventTypes",
                                            List.of("slow.ping")))
                            .status())
                    .isEqualTo(201);
        }
        assertThat(API.enqueue("slow.ping", "ping", "1", Map.of()).status()).isEqualTo(202);
        await().atMost(Duration.ofSeconds(60)).until(() -> SLOW.holding() >= SLOTS);

        List<String> orders = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            String order = "beside-" + i + "-" + System.nanoTime();
            orders.add(order);
            Answer accepted = SlowReceiversTest.sendInbound(API, "evt-" + order, order);
            assertThat(accepted.status()).isEqualTo(200);
        }

        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(() -> assertThat(orders)
                        .allSatisfy(order -> assertThat(API.producer("GET", "/entities/order/" + order, null)
                                        .text("state"))
                                .isEqualTo("created")));
        assertThat(SLOW.holding()).as("every HTTP slot is still held").isGreaterThanOrEqualTo(SLOTS);
        FaultFigures.count(
                        "every HTTP attempt slot held by a slow receiver, inbound events beside them",
                        getClass(),
                        orders.stream().map(order -> "evt-" + order).toList(),
                        FaultFigures.appliedInbound(API.jdbi()),
                        FaultFigures.deadLetters(API.jdbi()))
                .print()
                .assertTargets();
    }
}
