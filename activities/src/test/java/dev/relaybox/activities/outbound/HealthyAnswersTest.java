package dev.relaybox.activities.outbound;

import static org.assertj.core.api.Assertions.assertThat;

import dev.relaybox.producer.Outbox;
import dev.relaybox.producer.OutboxEvent;
import dev.relaybox.store.Columns;
import dev.relaybox.store.EndpointStore;
import dev.relaybox.store.TestDatabase;
import dev.relaybox.workflows.outbound.AttemptResult;
import dev.relaybox.workflows.outbound.AttemptResult.Outcome;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.jdbi.v3.core.Jdbi;
import org.junit.jupiter.api.Test;

/**
 * How answers settle an endpoint's health in PostgreSQL: a healthy endpoint's last success is kept to the second
 * (not written by every answer), and a failure and the success after it count as before.
 */
class HealthyAnswersTest {
    static final AttemptResult DELIVERED = new AttemptResult(Outcome.DELIVERED, 200, -1, "200 OK");
    static final AttemptResult UNAVAILABLE = new AttemptResult(Outcome.RETRYABLE, 503, -1, "503 Service Unavailable");
    static final Instant T0 = Instant.parse("2026-12-06T08:00:00Z");

    final Jdbi jdbi = TestDatabase.fresh();
    final EndpointControlActivitiesImpl controls =
            new EndpointControlActivitiesImpl(jdbi, CircuitSettings.defaults(), new SimpleMeterRegistry());

    @Test
    void aHealthyEndpointsLastSuccessIsKeptToTheSecondAndAFailureStillCounts() {
        UUID endpoint = jdbi.withExtension(
                EndpointStore.class,
                store -> store.insert("shop", "http://127.0.0.1:9/hooks", WebhookSigner.newSecret(), List.of("*"))
                        .orElseThrow()
                        .id());
        List<UUID> deliveries = List.of(delivery(), delivery(), delivery(), delivery(), delivery());

        controls.settle(deliveries.get(0), DELIVERED, T0);
        assertThat(health(endpoint)).containsEntry("last_success_at", T0).containsEntry("consecutive_failures", 0);

        controls.settle(deliveries.get(1), DELIVERED, T0.plusMillis(300));
        assertThat(health(endpoint))
                .as("within a second of the recorded success: nothing written")
                .containsEntry("last_success_at", T0);

        controls.settle(deliveries.get(2), DELIVERED, T0.plusMillis(1500));
        assertThat(health(endpoint)).containsEntry("last_success_at", T0.plusMillis(1500));

        controls.settle(deliveries.get(3), UNAVAILABLE, T0.plusMillis(1600));
        assertThat(health(endpoint)).containsEntry("consecutive_failures", 1);

        controls.settle(deliveries.get(4), DELIVERED, T0.plusMillis(1700));
        assertThat(health(endpoint))
                .as("a success after a failure forgets it and is recorded at once")
                .containsEntry("consecutive_failures", 0)
                .containsEntry("last_success_at", T0.plusMillis(1700));
    }

    /** A new row's delivery to every endpoint subscribed, made as the dispatcher makes it. */
    private UUID delivery() {
        return jdbi.inTransaction(h -> {
            UUID outboxId = Outbox.enqueue(h, new OutboxEvent("order.updated", "order", "42", "{}"));
            return new DeliveryPlanner(DeliverySettings.defaults().schedule())
                    .plan(h, outboxId)
                    .targets()
                    .get(0)
                    .deliveryId();
        });
    }

    private Map<String, Object> health(UUID endpointId) {
        return jdbi.withHandle(h -> h.createQuery("""
                        SELECT last_success_at, consecutive_failures FROM endpoint_state WHERE endpoint_id = :id""")
                .bind("id", endpointId)
                .map((rs, ctx) -> Map.<String, Object>of(
                        "last_success_at",
                        Columns.instant(rs, "last_success_at"),
                        "consecutive_failures",
                        rs.getInt("consecutive_failures")))
                .one());
    }
}
