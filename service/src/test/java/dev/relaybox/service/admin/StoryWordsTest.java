package dev.relaybox.service.admin;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.store.StoryQueries.DeliveryRow;
import dev.relaybox.store.StoryQueries.InboxRow;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class StoryWordsTest {
    static final Instant NOW = Instant.parse("2026-12-06T09:00:00Z");

    @Test
    void anEventWithADeadLetteredDeliveryIsNeverToldAsFinishedAndDelivered() {
        assertThat(StoryWords.outbound("PROCESSED", NOW, List.of("DELIVERED", "DEAD_LETTERED")))
                .isEqualTo("done, not all delivered: 1 of 2 delivered, 1 dead-lettered");
        assertThat(StoryWords.outbound("PROCESSED", NOW, List.of("DELIVERED", "DELIVERED")))
                .isEqualTo("delivered to all 2 endpoints, 2026-12-06T09:00:00Z");
        assertThat(StoryWords.outbound("DISPATCHED", null, List.of("DELIVERED", "PENDING")))
                .isEqualTo("delivering: 1 of 2 delivered");
        assertThat(StoryWords.outbound("PROCESSED", NOW, List.of()))
                .isEqualTo("finished 2026-12-06T09:00:00Z: no endpoint subscribes to it");
    }

    @Test
    void aReplayedDeliveryCountsTheAttemptsItsLogLists() {
        DeliveryRow replayed = delivery("PENDING", 0, null, null);

        assertThat(StoryWords.delivery(replayed, 4, NOW))
                .startsWith("next attempt pending; 4 attempts so far")
                .doesNotContain("0 attempts");
    }

    @Test
    void aDeliveryHeldByAnOpenCircuitSaysSoInsteadOfANextAttemptInThePast() {
        DeliveryRow held = delivery("RETRYING", 3, NOW.minusSeconds(600), "CIRCUIT");
        DeliveryRow overdue = delivery("RETRYING", 3, NOW.minusSeconds(600), null);

        assertThat(StoryWords.delivery(held, 3, NOW))
                .startsWith("waiting for its endpoint's circuit to close")
                .doesNotContain("next attempt");
        assertThat(StoryWords.delivery(overdue, 3, NOW)).startsWith("next attempt due since 2026-12-06T08:50:00Z");
    }

    @Test
    void deliveredAndDeadLetteredDeliveriesSayHowManyAttemptsTheyTook() {
        assertThat(StoryWords.delivery(delivery("DELIVERED", 1, null, null), 1, NOW))
                .isEqualTo("delivered 2026-12-06T09:00:00Z after 1 attempt");
        assertThat(StoryWords.delivery(delivery("DEAD_LETTERED", 2, null, null), 2, NOW))
                .isEqualTo("dead-lettered after 2 attempts; last: 503 Service Unavailable");
    }

    @Test
    void anAppliedEventTellsWhatItWaitedForAsPastNotAsItsState() {
        InboxRow applied = inbox("PROCESSED", "APPLIED", "waiting for order.created: entity does not exist yet");

        assertThat(StoryWords.inbound(applied))
                .isEqualTo(
                        "applied 2026-12-06T09:00:00Z after waiting (waiting for order.created: entity does not exist"
                                + " yet); 2 decisions");
        assertThat(StoryWords.inbound(inbox("DEFERRED", "DEFERRED", "waiting for order.created")))
                .isEqualTo("deferred: waiting for order.created; 2 decisions so far");
    }

    private static DeliveryRow delivery(String status, int attempts, Instant nextAttemptAt, String waitingFor) {
        return new DeliveryRow(
                UUID.randomUUID(),
                UUID.randomUUID(),
                "shop",
                "https://shop.example/hooks",
                status,
                attempts,
                status.equals("DELIVERED") ? 200 : 503,
                status.equals("DELIVERED") ? null : "503 Service Unavailable",
                nextAttemptAt,
                status.equals("DELIVERED") ? NOW : null,
                waitingFor);
    }

    private static InboxRow inbox(String status, String outcome, String deferReason) {
        return new InboxRow(
                UUID.randomUUID(),
                "shop",
                "evt-1",
                "order.paid",
                status,
                outcome,
                deferReason,
                null,
                2,
                NOW.minusSeconds(5),
                status.equals("PROCESSED") ? NOW : null,
                null);
    }
}
