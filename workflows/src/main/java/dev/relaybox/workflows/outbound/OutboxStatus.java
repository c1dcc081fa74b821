package dev.relaybox.workflows.outbound;

import java.util.List;
import java.util.UUID;

/** What the workflow is doing right now, per delivery. */
public record OutboxStatus(UUID outboxId, String status, List<DeliveryStatus> deliveries) {
    public record DeliveryStatus(UUID deliveryId, String endpoint, String status, int attempts, String lastResult,
            String nextAttemptAt) {}
}
