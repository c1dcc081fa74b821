package dev.relaybox.service.temporal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.relaybox.activities.outbound.TestReceiver;
import dev.relaybox.service.Api.Answer;
import dev.relaybox.service.RelayboxOnRealTemporal;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The limits {@link ServerLimitsTest} stays within are real: the same server with one of them lowered refuses what
 * the default lets through, and Relaybox quarantines the event with the server's reason instead of retrying it for
 * ever or losing it, while the next event flows.
 */
class LoweredServerLimitTest {
    @Test
    void aSearchAttributeOverTheServersValueLimitQuarantinesTheEventWithTheServersReason() {
        try (TestReceiver receiver = new TestReceiver();
                RelayboxOnRealTemporal relaybox = RelayboxOnRealTemporal.start(
                        "lowered-limit",
                        // 100 bytes per value instead of 2 KiB: an aggregate of 150 characters, cut to 255 bytes, is
                        // over.
                        options -> options.withDynamicConfig("frontend.searchAttributesSizeOfValueLimit=100"),
                        Map.of())) {
            Answer endpoint = relaybox.admin(
                    "POST",
                    "/admin/endpoints",
                    Map.of("name", "shipping", "url", receiver.url("/shipping"), "eventTypes", List.of("order.*")));
            assertThat(endpoint.status()).isEqualTo(201);

            String longId = outbound(relaybox, "9".repeat(150));
            String shortId = outbound(relaybox, "42");

            await().atMost(Duration.ofSeconds(60))
                    .until(() -> status(relaybox, longId).equals("QUARANTINED"));
            assertThat(reason(relaybox, longId))
                    .startsWith("cannot start: Temporal refused to start its workflow: ")
                    .contains("search attribute RelayAggregate value size")
                    .contains("exceeds size limit 100");
            await().atMost(Duration.ofSeconds(60))
                    .until(() -> status(relaybox, shortId).equals("PROCESSED"));
            assertThat(receiver.received("/shipping")).hasSize(1);
        }
    }

    private static String outbound(RelayboxOnRealTemporal relaybox, String aggregateId) {
        Answer answer = relaybox.producer(
                "POST",
                "/outbox",
                Map.of(
                        "eventType",
                        "order.shipped",
                        "aggregateType",
                        "order",
                        "aggregateId",
                        aggregateId,
                        "payload",
                        Map.of("orderId", aggregateId)));
        assertThat(answer.status()).as("%s", answer.body()).isEqualTo(202);
        return answer.text("id");
    }

    private static String status(RelayboxOnRealTemporal relaybox, String outboxId) {
        return relaybox.api()
                .jdbi()
                .withHandle(h -> h.createQuery("SELECT status FROM outbox_events WHERE id = CAST(:id AS uuid)")
                        .bind("id", outboxId)
                        .mapTo(String.class)
                        .one());
    }

    private static String reason(RelayboxOnRealTemporal relaybox, String outboxId) {
        return relaybox.api()
                .jdbi()
                .withHandle(h -> h.createQuery("SELECT reason FROM dead_letters WHERE reference = CAST(:id AS uuid)")
                        .bind("id", outboxId)
                        .mapTo(String.class)
                        .one());
    }
}
